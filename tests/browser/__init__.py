"""Tests that drive a real Chromium through Playwright."""
