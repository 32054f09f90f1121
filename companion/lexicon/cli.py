"""``companion judge`` and ``companion lexicon list|build|import|remove|info``.

Exit codes: 0 VALID / done, 1 INVALID, 2 bad input (a digit, an empty word, an unknown lexicon).
"""

from __future__ import annotations

import argparse
import json
import sys

from companion.cliutil import CompanionParser


class _ActionParser(CompanionParser):
    """A ``companion lexicon ACTION`` parser that reports an unknown option itself, with its own
    usage and the option meant (argparse otherwise hands it up to ``companion``, which prints the
    top-level usage)."""

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``judge`` and ``lexicon`` with its actions to the ``companion`` parser."""
    j = sub.add_parser(
        "judge",
        help="rule on a challenged play: VALID or INVALID",
        description=(
            "Rule on a challenged play as a table-side judge does: VALID if every word is in the "
            "lexicon (exit 0), INVALID otherwise (exit 1), without saying which word failed "
            "unless --explain is given. Case does not matter. Exit 2 on bad input (a digit, an "
            "empty word, a hyphen or apostrophe, an unknown lexicon)."
        ),
    )
    j.add_argument("words", nargs="+", metavar="WORD", help="the words of the play")
    j.add_argument(
        "--explain",
        action="store_true",
        help="for the arbiter: the answer for each word, where it was found (list and rule) "
        "and its short definition (WordNet or GCIDE)",
    )
    j.add_argument(
        "--lexicon", metavar="NAME", default=None, help="the lexicon to use (default: the table's)"
    )
    j.add_argument(
        "--json",
        action="store_true",
        help='print {"verdict", "valid", "lexicon"} (and "words" with --explain) as JSON',
    )
    j.set_defaults(func=_judge)

    lex = sub.add_parser("lexicon", help="word lists: list, build, import, remove, info")
    lsub = lex.add_subparsers(dest="lexicon_command", metavar="ACTION", parser_class=_ActionParser)
    lsub.required = True

    p = lsub.add_parser("list", help="the lexicons that can be used, and which one the table uses")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_list)

    p = lsub.add_parser(
        "build",
        help="compile a SCOWL lexicon's index (only if its sources changed, unless --force)",
        description=(
            "Compile a lexicon from SCOWL (/usr/share/dict/scowl) into a memory-mapped index in "
            "the data directory. Give a NAME (scowl-80-british) or --size/--spelling."
        ),
    )
    p.add_argument("name", nargs="?", default=None, help="lexicon name (default: the table's)")
    p.add_argument("--size", type=int, default=None, help="SCOWL size: 35 40 50 55 60 70 80 95")
    p.add_argument(
        "--spelling", choices=("american", "british", "both"), default=None, help="default both"
    )
    p.add_argument(
        "--variants",
        type=int,
        choices=(0, 1, 2),
        default=None,
        help="SCOWL variant spellings included: 0 none, 1 common (default), 2 also less common",
    )
    p.add_argument("--force", action="store_true", help="rebuild even if the index is fresh")
    p.set_defaults(func=_build)

    p = lsub.add_parser(
        "import",
        help="import a tournament word list (one word a line, # comments)",
        description=(
            "Import a word list: one word a line, any case, '#' starts a comment, accents are "
            "folded. Lines that are not one word of letters A-Z are reported with their number "
            "and reason; the others are taken (with --strict, nothing is taken if any line is "
            "rejected). The import is all or nothing: a failure leaves the previous list whole."
        ),
    )
    p.add_argument("file", help="the word list (UTF-8 or ISO-8859-1 text; else give --encoding)")
    p.add_argument("--name", default=None, help="the lexicon's name (default: the file's name)")
    p.add_argument("--strict", action="store_true", help="import nothing if any line is rejected")
    p.add_argument("--replace", action="store_true", help="replace a list of the same name")
    p.add_argument(
        "--encoding",
        default=None,
        help="read the file in this encoding (e.g. mac_roman, shift_jis, cp1251) instead of "
        "finding it: for a file in another legacy encoding, which is otherwise refused",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=_import)

    p = lsub.add_parser(
        "explain-index",
        help="build the index judge --explain reads (only if its sources changed, unless --force)",
        description=(
            "Build the explain index in the data directory's cache: every SCOWL file's lines "
            "for each word, and each word's WordNet or GCIDE definition, so that judge --explain "
            "answers in milliseconds instead of reading the dictionaries (seconds, some 350 MB). "
            "make install and make run build it; about 30 s and a peak near 130 MB. An index "
            "that is current and whole (its stamp, and PRAGMA quick_check) is left as it is; a "
            "stale or damaged one is rebuilt."
        ),
    )
    p.add_argument("--force", action="store_true", help="rebuild even if the index is current")
    p.set_defaults(func=_explain_index)

    p = lsub.add_parser("remove", help="delete an imported list (SCOWL lists cannot be removed)")
    p.add_argument("name", help="the imported list's name")
    p.set_defaults(func=_remove)

    p = lsub.add_parser("info", help="what a lexicon holds and where it comes from")
    p.add_argument("name", nargs="?", default=None, help="lexicon name (default: the table's)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument(
        "--short",
        action="store_true",
        help="also the one- and two-letter entries accepted and left out (SCOWL lists)",
    )
    p.set_defaults(func=_info)


def _judge(args: argparse.Namespace) -> int:
    from companion.lexicon.judge import judge, normalise
    from companion.lexicon.store import open_lexicon

    for w in args.words:  # bad input is reported before the lexicon is opened
        normalise(w)
    lexicon = open_lexicon(args.lexicon)
    ruling = judge(args.words, lexicon)
    verdict = "VALID" if ruling.valid else "INVALID"
    explained = {}
    if args.explain:
        from companion.lexicon.explain import explain
        from companion.lexicon.explainindex import ExplainIndexError, open_index

        def fallback(problem: str) -> None:
            print(
                f"note: {problem}; --explain reads SCOWL, WordNet and GCIDE themselves instead "
                "(the same answer, in seconds and some 350 MB)",
                file=sys.stderr,
            )

        index, problem = open_index()
        if problem:
            fallback(problem)
        try:
            explained = {w: explain(w, lexicon, index) for w in ruling.words}
        except ExplainIndexError as exc:  # damaged past the opening's checks: the sources
            fallback(str(exc))
            explained = {w: explain(w, lexicon, None) for w in ruling.words}
        finally:
            if index is not None:
                index.close()
    if args.json:
        out = {"verdict": verdict, "valid": ruling.valid, "lexicon": lexicon.name}
        if args.explain:
            out["words"] = ruling.words
            out["explain"] = {w: e.to_json() for w, e in explained.items()}
        print(json.dumps(out))
        return 0 if ruling.valid else 1
    print(verdict)
    if args.explain:
        for word, ok in ruling.words.items():
            print(f"{word}\t{'valid' if ok else 'invalid'}")
            for line in explained[word].lines():
                print(line)
        print(f"lexicon\t{lexicon.name}")
    return 0 if ruling.valid else 1


def _list(args: argparse.Namespace) -> int:
    from companion.lexicon.store import available

    rows = available()
    if args.json:
        print(json.dumps(rows))
        return 0
    for r in rows:
        mark = "*" if r["in_use"] else " "
        words = f"{r['words']:>8} words" if r["words"] is not None else "   (not built)"
        print(f"{mark} {r['name']:<24} {r['kind']:<9} {words}")
    return 0


def _build(args: argparse.Namespace) -> int:
    from companion.lexicon import scowl
    from companion.lexicon.store import LexiconError, build, record, table_lexicon_name

    name = args.name
    if args.size is not None or args.spelling is not None or args.variants is not None:
        base = scowl.parse_name(name or table_lexicon_name()) or scowl.ScowlParams()
        if name is not None and scowl.parse_name(name) is None:
            raise LexiconError(f"--size/--spelling/--variants apply to SCOWL lists, not {name!r}")
        size = args.size if args.size is not None else base.size
        if size not in scowl.SIZES:
            raise LexiconError(
                f"--size {size} is not a SCOWL size: give one of "
                + ", ".join(map(str, scowl.SIZES))
            )
        name = scowl.ScowlParams(
            size,
            args.spelling or base.spelling,
            args.variants if args.variants is not None else base.variants,
        ).name
    before = record(name or table_lexicon_name())
    lex = build(name, force=args.force)  # a progress bar on a terminal only
    fresh = before is not None and before.get("index") == lex.meta.get("index")
    state = "up to date" if fresh else "built"
    print(f"{lex.name}: {state}, {len(lex)} words, {lex.path}")
    return 0


def _import(args: argparse.Namespace) -> int:
    from companion.lexicon.store import import_list

    report = import_list(
        args.file, args.name, strict=args.strict, replace=args.replace, encoding=args.encoding
    )
    if args.json:
        print(json.dumps(report.to_json()))
        return 0
    verb = "replaced" if report.replaced else "imported"
    print(
        f"{verb} {report.name}: {report.taken} words taken, {len(report.rejected)} lines "
        f"rejected, {report.duplicates} duplicates, {report.skipped} blank or comment lines"
    )
    for r in report.rejected:
        print(f"  rejected {r}")
    return 0


def _explain_index(args: argparse.Namespace) -> int:
    import sqlite3

    from companion.lexicon.explainindex import build_index, index_path, index_problem
    from companion.lexicon.store import LexiconError

    # stale or damaged (index_problem checks the file whole: about 0.1 s): said, then rebuilt
    problem = None if args.force or not index_path().exists() else index_problem()
    try:
        path, built = build_index(force=args.force)
    except (OSError, sqlite3.Error) as exc:
        raise LexiconError(f"the explain index cannot be built: {exc}") from None
    size = path.stat().st_size / 2**20
    state = "up to date" if not built else "built" if problem is None else f"rebuilt ({problem})"
    print(f"explain index: {state}, {size:.1f} MB, {path}")
    return 0


def _remove(args: argparse.Namespace) -> int:
    from companion.lexicon.store import remove, table_lexicon_name

    remove(args.name)
    note = (
        " (the table's configuration still names it)" if table_lexicon_name() == args.name else ""
    )
    print(f"removed {args.name.lower()}{note}")
    return 0


def _print_short(short: dict) -> None:
    accepted = short["accepted"]
    for n in (1, 2):
        words = [w for w in accepted if len(w) == n]
        print(f"accepted {n}-letter words ({len(words)}): {' '.join(words)}")
    if short.get("added"):
        print(
            f"of them added by the rules second source and GCIDE form: {' '.join(short['added'])}"
        )
    if "left_out" in short:
        counts = ", ".join(f"{len(v)} {k}" for k, v in short["left_out"].items())
        print(f"one- or two-letter entries left out: {counts}")
        rejected = short["rejected"]
        print(f"rejected 1-2 letter strings ({len(rejected)}): {' '.join(rejected)}")


def _info(args: argparse.Namespace) -> int:
    from companion.lexicon import scowl
    from companion.lexicon.store import open_lexicon, table_lexicon_name

    lex = open_lexicon(args.name)
    meta = dict(lex.meta)
    info = {
        "name": lex.name,
        "kind": meta.get("kind"),
        "words": len(lex),
        "one_letter_words": meta.get("one_letter"),
        "two_letter_words": meta.get("two_letter"),
        "params": meta.get("params"),
        "sources": meta.get("sources"),
        "entries": meta.get("entries"),
        "index": str(lex.path) if lex.path else None,
        "index_bytes": lex.path.stat().st_size if lex.path else None,
        "built_at": meta.get("built_at"),
        "in_use": lex.name == table_lexicon_name(),
    }
    for key in ("imported_from", "import_sha256", "import_report"):
        if key in meta:
            info[key] = meta[key]
    params = scowl.parse_name(lex.name)
    if args.short:
        if params is not None:
            from companion.lexicon.screen import screen

            short = scowl.short_entries(params, screen=screen().why)
            # the index also holds what the rules that add words added (second source: TE)
            held = sorted(w for w in lex if len(w) <= 2)
            short["added"] = sorted(set(held) - set(short["accepted"]))
            short["accepted"] = held
            short["rejected"] = [w for w in short["rejected"] if w not in set(held)]
        else:
            short = {"accepted": sorted(w for w in lex if len(w) <= 2)}
        info["short"] = short
    if args.json:
        print(json.dumps(info))
        return 0
    # the text leads with the list's name and counts, then (--short) the short words' lists; the
    # source files, some 80 lines for a SCOWL list, come last
    rest = dict(info)
    short_lists, sources = rest.pop("short", None), rest.pop("sources", None)
    lead = ("name", "kind", "words", "one_letter_words", "two_letter_words")
    for key in lead:
        if rest.get(key) is not None:
            print(f"{key}: {rest[key]}")
    if short_lists is not None:
        _print_short(short_lists)
    for key, value in rest.items():
        if key not in lead and value is not None:
            print(f"{key}: {value}")
    if sources:
        print("sources:")
        for s in sources:
            print(f"  {s}")
    return 0
