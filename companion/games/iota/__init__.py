"""games/iota."""
