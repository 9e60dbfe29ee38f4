"""Numerics that build and evaluate strong lottery tickets: subset sums, constructions, models, data."""
