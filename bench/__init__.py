"""Benchmarks: ``make bench`` runs every ``bench_*.py`` module's ``main()``, which prints its figures."""
