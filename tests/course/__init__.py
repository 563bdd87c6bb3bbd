"""Tests of course."""
