"""``make demo``: Cueboard inside vrosdev, on demo content generated on first run."""
