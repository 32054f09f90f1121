"""Word lists compiled to a compact index, the word judge, morphology and phonetics."""
