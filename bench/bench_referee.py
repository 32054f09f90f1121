"""The word judge against a standard dictionary: the referee's fixed list of 1,000 words by kind
(tests/data/referee_words.tsv, drawn by bench/referee_sample.py from WordNet and GCIDE), ruled by
each SCOWL size. Goal: 99% agreement on the default list; every disagreement is printed, and so
are the counts of the screen's rules (docs/lexicon.md): over every size, and for each list the
entries it leaves out by rule and the words the rules add."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

LIST = Path(__file__).resolve().parent.parent / "tests" / "data" / "referee_words.tsv"


def main() -> None:
    from companion.lexicon import open_lexicon
    from companion.lexicon.screen import screen

    sc = screen()
    left_out = ", ".join(f"{rule} {n:,}" for rule, n in sorted(sc.counts().items()))
    print(f"screen, every SCOWL size: left out {left_out}; may add: second source "
          f"{len(sc.vouched):,}, GCIDE form {len(sc.forms):,}")  # fmt: skip

    rows = [
        line.split("\t")
        for line in LIST.read_text(encoding="utf-8").splitlines()
        if line and not line.startswith("#")
    ]
    for name in ("scowl-70-both", "scowl-80-both", "scowl-95-both"):
        lex = open_lexicon(name)
        wrong = [r for r in rows if (r[0] in lex) != (r[2] == "VALID")]
        share = 1 - len(wrong) / len(rows)
        goal = "goal 99%: " + ("met" if share >= 0.99 else "not met")
        print(f"{name}: {share:.1%} agreement on {len(rows)} words ({goal})")
        tally = lex.meta.get("entries", {})
        rules = ("foreign", "foreign word", "abbreviation", "name", "added: second source",
                 "added: GCIDE form")  # fmt: skip
        print(f"  {len(lex):,} words; " + ", ".join(f"{r} {tally.get(r, 0):,}" for r in rules))
        by_kind = Counter(r[1] for r in wrong)
        print("  disagreements by kind: " + ", ".join(f"{k} {n}" for k, n in by_kind.items()))
        if name == "scowl-70-both":
            for word, kind, reference, evidence in wrong:
                said = "VALID" if word in lex else "INVALID"
                print(
                    f"  {word.upper():<14} {kind:<12} box {said:<7} reference {reference}: {evidence}"
                )


if __name__ == "__main__":
    main()
