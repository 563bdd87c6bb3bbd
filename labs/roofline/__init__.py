"""The roofline lab: attainable performance under a memory-bandwidth slope and a compute roof."""
