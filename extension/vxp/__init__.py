"""VXP 1.7 SDK."""
