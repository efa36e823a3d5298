"""Scale-out: a suite's benchmarks measured on other machines through Dask distributed.

`units` cuts a Run into work units and merges their results back; `worker` measures one unit on a
worker machine; `client` submits the units and gathers them. Dask is imported only by `client`
and `worker`, and only when `--cluster` is given.
"""
