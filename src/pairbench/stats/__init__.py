"""Statistics: floats in, dataclasses out. No processes, sockets or formatting here."""
