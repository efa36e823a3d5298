"""Flows: what a command asks for, carried out (measure, bisect, calibrate, read history).

A flow takes typed values (never an argparse Namespace), wires the layers below it (runners,
session, store, analysis, report) and returns results; `commands/` parses flags and calls a flow.
"""
