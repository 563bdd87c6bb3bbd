"""Tests of trace."""
