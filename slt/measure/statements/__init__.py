"""One module per statement of the paper: its trials or measurements, grids and re-run entry point."""
