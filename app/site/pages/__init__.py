"""The page scripts (``panel serve`` serves each file as a page): index, lesson, lab, instructor."""
