"""Statistics: floats in, dataclasses out. No processes, sockets or formatting here.

Modules (each names its method and references in its docstring):
  compare       compare_paired / compare_unpaired / compare_exact: ratio, CI, p-value, verdict
  estimate      summarize, Hodges-Lehmann estimators, log-differences
  tests         t, Welch, Wilcoxon signed-rank and Mann-Whitney intervals and p-values
  pairwise      order statistics and counts of the m·n differences y_j - x_i, selected unformed
  bootstrap     BCa bootstrap over blocks (10,000 resamples, fixed seed)
  verdict       the verdict table with the noise band, blocks needed, minimum detectable effect
  outliers      MAD z-scores, skew and bimodality flags
  drift         Kendall's tau of a series against block order
  sequential    looks for adaptive stopping and their Bonferroni confidence
  multiplicity  Holm, Benjamini-Hochberg, adjusted CI levels, geometric mean with a block bootstrap
  calibration   A/A calibration: observed false-positive rate and the band that keeps it at 5%
Nothing is imported here, so importing one module does not pull in the others.
"""
