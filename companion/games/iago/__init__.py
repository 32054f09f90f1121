"""games/iago."""
