"""Tests of upstream."""
