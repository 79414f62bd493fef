"""Long work: progress and cancellation, batches paced by the clock, the cores this process may use, and
the garbage collector paused while millions of objects are made."""
