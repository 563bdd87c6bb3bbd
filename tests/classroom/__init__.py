"""Tests of classroom."""
