"""Reading the table from camera frames: finding tiles, classifying colour and shape, and frame sources."""
