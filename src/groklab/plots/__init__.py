"""Figures: one style; accuracy curves (per run, seed bands), measure plots, number-line plots."""
