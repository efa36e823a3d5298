"""Files shipped with pairbench: the demo workload and apps."""
