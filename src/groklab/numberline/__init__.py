"""Number-line probe (paper 003): do hidden states of numerals lie on a (logarithmic) line?"""
from groklab.numberline.fourier import fourier_geometry
from groklab.numberline.numbers import numeral, parse_numbers
from groklab.numberline.probe import direction, line_stats, orient, project
from groklab.numberline.run import run_numberline
from groklab.numberline.spec import NumberlineSpec, make_spec

__all__ = ["NumberlineSpec", "direction", "fourier_geometry", "line_stats", "make_spec", "numeral", "orient",
           "parse_numbers", "project", "run_numberline"]
