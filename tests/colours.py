"""WCAG colour contrast, for tests that check a colour against what it is drawn on."""

from __future__ import annotations


def rgb(hex_colour: str) -> tuple[int, int, int]:
    """The 0-255 channels of a ``#rrggbb`` colour."""
    text = hex_colour.lstrip("#")
    return int(text[0:2], 16), int(text[2:4], 16), int(text[4:6], 16)


def contrast(first: tuple[float, ...], second: tuple[float, ...]) -> float:
    """WCAG contrast ratio of two sRGB colours (0-255 channels)."""

    def luminance(channels: tuple[float, ...]) -> float:
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (x / 255 for x in channels[:3])]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)
