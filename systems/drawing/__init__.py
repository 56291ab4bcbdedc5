"""mallard.systems.drawing — block-diagram plots (pydrake.systems.drawing) and VectorLog plots."""
from .graphviz_plot import diagram_graph, plot_graphviz, plot_system_graphviz
from .log_plot import plot_vector_log

__all__ = ["diagram_graph", "plot_graphviz", "plot_system_graphviz", "plot_vector_log"]
