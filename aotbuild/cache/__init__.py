"""The object cache shared by every build on a machine: where it is, and how it is kept."""
