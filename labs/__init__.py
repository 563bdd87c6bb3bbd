"""Overlap Lab's simulations: each lab is a pure model plus a Panel view."""
