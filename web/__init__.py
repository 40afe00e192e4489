"""The scoreboard web app (Flask): app factory, one blueprint per area."""
