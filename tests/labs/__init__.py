"""Tests of labs."""
