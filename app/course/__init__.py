"""The course: lessons, guided exercises, their cards and progress, and the pages that show them."""
