"""Teaching the reader a table, a light and a tile set: colour prototypes, geometry, camera settings."""
