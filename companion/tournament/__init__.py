"""The tournament network: the table's link to the director (``companion link``), the director
service (``companion director``), its store (SQLite), pairings and rounds. Topics, payloads and
security: docs/tournament.md."""
