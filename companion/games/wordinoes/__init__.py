"""games/wordinoes."""
