"""Measuring: the metric table, eval's metrics over score vectors, the measures of runs (ir_measures'
names), runs of a retriever over questions, and TREC run and qrels files."""
