"""`MultilayerPerceptron`: a fully connected neural network y = f(x) whose weights are numeric parameters of
the context (pydrake.systems.primitives).

Layer i maps X_i to X_{i+1} = σ_i(W_i X_i + b_i). The parameter vector stacks, per layer, W_i (column-major,
layers[i+1] x layers[i]) then b_i, as Drake's. An input flagged in `use_sin_cos_for_input` enters as the two
features (sin x, cos x).
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from mallard.common.cpp_enum import CppEnum
from mallard.systems.framework import BasicVector, LeafSystem

from ._util import input_data

__all__ = ["MultilayerPerceptron", "PerceptronActivationType"]


class PerceptronActivationType(CppEnum):
    """The activation σ of a layer."""

    kIdentity = 0
    kReLU = 1
    kTanh = 2


def _activate(kind: PerceptronActivationType, Z: np.ndarray, gradient: bool):
    """(σ(Z), dσ/dZ elementwise or None)."""
    if kind == PerceptronActivationType.kTanh:
        Y = np.tanh(Z)
        return Y, (1.0 - Y * Y) if gradient else None
    if kind == PerceptronActivationType.kReLU:
        return np.maximum(Z, 0.0), (Z > 0.0).astype(float) if gradient else None
    return Z.copy(), np.ones_like(Z) if gradient else None


class MultilayerPerceptron(LeafSystem):
    """`(layers, activation_type=kTanh)` (kIdentity on the output layer), `(layers, activation_types)` or
    `(use_sin_cos_for_input, remaining_layers, activation_types)`. Input port "x", output port "y"."""

    def __init__(self, layers: Sequence[int] | None = None,
                 activation_type: PerceptronActivationType = PerceptronActivationType.kTanh, *,
                 activation_types: Sequence[PerceptronActivationType] | None = None,
                 use_sin_cos_for_input: Sequence[bool] | None = None,
                 remaining_layers: Sequence[int] | None = None) -> None:
        super().__init__()
        if use_sin_cos_for_input is None:
            if not layers:
                raise ValueError("MultilayerPerceptron: layers needs at least an input and an output size")
            if not isinstance(activation_type, PerceptronActivationType):  # (layers, activation_types) positionally
                activation_types, activation_type = activation_type, PerceptronActivationType.kTanh
            use_sin_cos_for_input = [False] * int(layers[0])
            remaining_layers = list(layers[1:])
            if activation_types is None:
                activation_types = [activation_type] * (len(remaining_layers) - 1) + [PerceptronActivationType.kIdentity]
        self._sin_cos = [bool(b) for b in use_sin_cos_for_input]
        self._layers = [len(self._sin_cos) + sum(self._sin_cos)] + [int(n) for n in remaining_layers]
        self._activations = [PerceptronActivationType(a) for a in activation_types]
        if len(self._layers) < 2 or len(self._activations) != len(self._layers) - 1 or min(self._layers) < 1:
            raise ValueError(f"MultilayerPerceptron: layers {self._layers} need positive sizes and one activation per "
                             f"layer after the input (got {len(self._activations)})")
        self._weight_index, self._bias_index, n = [], [], 0
        for i in range(len(self._layers) - 1):
            self._weight_index.append(n)
            n += self._layers[i + 1] * self._layers[i]
            self._bias_index.append(n)
            n += self._layers[i + 1]
        self._num_parameters = n
        self.DeclareVectorInputPort("x", len(self._sin_cos))
        self._params = self.DeclareNumericParameter(BasicVector(np.zeros(n)))
        self.DeclareVectorOutputPort("y", self._layers[-1], self._calc_output)

    # ---- structure ---------------------------------------------------------------------------------
    def num_parameters(self) -> int:
        return self._num_parameters

    def layers(self) -> list[int]:
        return list(self._layers)

    def activation_type(self, layer: int) -> PerceptronActivationType:
        return self._activations[layer]

    # ---- parameters (from a context or from a parameter vector) -------------------------------------
    def GetParameters(self, context) -> np.ndarray:
        self.ValidateContext(context)
        return context.get_numeric_parameter(self._params).CopyToVector()

    def GetMutableParameters(self, context) -> np.ndarray:
        """A writable view of the parameter vector in `context`."""
        self.ValidateContext(context)
        return context.get_mutable_numeric_parameter(self._params).get_mutable_value()

    def SetParameters(self, context, params) -> None:
        self.ValidateContext(context)
        context.get_mutable_numeric_parameter(self._params).SetFromVector(params)

    def _vector(self, context, params, mutable: bool) -> np.ndarray:
        if params is not None:
            return params
        self.ValidateContext(context)
        group = context.get_mutable_numeric_parameter(self._params) if mutable else \
            context.get_numeric_parameter(self._params)
        return group.get_mutable_value() if mutable else group._data

    def _weight_block(self, layer: int) -> tuple[int, int, int]:
        return self._weight_index[layer], self._layers[layer + 1], self._layers[layer]

    def GetWeights(self, context=None, layer: int = 0, *, params=None) -> np.ndarray:
        """W of `layer` (layers[layer+1] x layers[layer]) from `context` or from a parameter vector `params`."""
        start, rows, cols = self._weight_block(layer)
        return self._vector(context, params, False)[start:start + rows * cols].reshape((rows, cols), order="F").copy()

    def GetBiases(self, context=None, layer: int = 0, *, params=None) -> np.ndarray:
        start = self._bias_index[layer]
        return self._vector(context, params, False)[start:start + self._layers[layer + 1]].copy()

    def SetWeights(self, context=None, layer: int = 0, W=None, *, params=None) -> None:
        """Writes W of `layer` into `context` or into the parameter vector `params` (in place)."""
        start, rows, cols = self._weight_block(layer)
        W = np.asarray(W, dtype=float)
        if W.shape != (rows, cols):
            raise ValueError(f"SetWeights: layer {layer} weights must be {rows}x{cols}, got {W.shape}")
        self._vector(context, params, True)[start:start + rows * cols] = W.ravel(order="F")

    def SetBiases(self, context=None, layer: int = 0, b=None, *, params=None) -> None:
        start, n = self._bias_index[layer], self._layers[layer + 1]
        b = np.asarray(b, dtype=float).ravel()
        if b.size != n:
            raise ValueError(f"SetBiases: layer {layer} biases must have size {n}, got {b.size}")
        self._vector(context, params, True)[start:start + n] = b

    def SetRandomParameters(self, context, parameters, generator) -> None:
        """Weights and biases uniform in ±sqrt(3 / fan_in) (standard deviation 1/sqrt(fan_in)), as Drake's."""
        rng = generator if hasattr(generator, "uniform") else np.random.default_rng(int(generator()))
        params = parameters.get_mutable_numeric_parameter(int(self._params)).get_mutable_value()
        for i in range(len(self._layers) - 1):
            m = np.sqrt(3.0 / self._layers[i])
            start, rows, cols = self._weight_block(i)
            params[start:start + rows * cols] = m * rng.uniform(-1.0, 1.0, rows * cols)
            b = self._bias_index[i]
            params[b:b + rows] = m * rng.uniform(-1.0, 1.0, rows)

    # ---- evaluation ------------------------------------------------------------------------------------
    def _features(self, X: np.ndarray) -> np.ndarray:
        rows = []
        for k, use in enumerate(self._sin_cos):
            rows.extend([np.sin(X[k]), np.cos(X[k])] if use else [X[k]])
        return np.array(rows)

    def _forward(self, params: np.ndarray, X: np.ndarray, gradient: bool):
        """Per layer: (input of the layer, activation derivative); and the output Y."""
        inputs, derivatives = [], []
        Xn = self._features(X)
        for i in range(len(self._layers) - 1):
            inputs.append(Xn)
            Z = self.GetWeights(params=params, layer=i) @ Xn + self.GetBiases(params=params, layer=i)[:, None]
            Xn, dXn = _activate(self._activations[i], Z, gradient)
            derivatives.append(dXn)
        return inputs, derivatives, Xn

    def _calc_output(self, context, output) -> None:
        x = input_data(self, context, 0)[:, None]
        params = context.get_numeric_parameter(self._params)._data
        output.SetFromVector(self._forward(params, x, False)[2][:, 0])

    def BatchOutput(self, context, X, Y=None, dYdX=None) -> np.ndarray | None:
        """The outputs for the columns of X (one sample per column); written into Y (and the input gradient
        into dYdX, only for a size-1 output) when given, else returned."""
        self.ValidateContext(context)
        X = np.asarray(X, dtype=float)
        params = context.get_numeric_parameter(self._params)._data
        inputs, derivatives, out = self._forward(params, X, dYdX is not None)
        if dYdX is not None:
            if self._layers[-1] != 1:
                raise RuntimeError("BatchOutput: dYdX is only supported when the output layer has size 1")
            g = np.ones((1, X.shape[1]))
            for i in range(len(self._layers) - 2, -1, -1):
                g = self.GetWeights(params=params, layer=i).T @ (g * derivatives[i])
            dYdX[:] = self._feature_gradient(g, X)
        if Y is None:
            return out
        Y[:] = out
        return None

    def _feature_gradient(self, g: np.ndarray, X: np.ndarray) -> np.ndarray:
        """Gradient with respect to the raw inputs from the gradient with respect to the features."""
        out, f = np.empty((len(self._sin_cos), X.shape[1])), 0
        for k, use in enumerate(self._sin_cos):
            if use:
                out[k] = g[f] * np.cos(X[k]) - g[f + 1] * np.sin(X[k])
                f += 2
            else:
                out[k] = g[f]
                f += 1
        return out

    def Backpropagation(self, context, X, loss: Callable, dloss_dparams: np.ndarray) -> float:
        """loss(Y, dloss_dY) for the batch X (the callback fills dloss_dY in place and returns the loss);
        writes d loss / d parameters into `dloss_dparams`; returns the loss."""
        self.ValidateContext(context)
        X = np.asarray(X, dtype=float)
        params = context.get_numeric_parameter(self._params)._data
        inputs, derivatives, Y = self._forward(params, X, True)
        dloss_dY = np.full(Y.shape, np.nan)
        value = loss(Y, dloss_dY)
        g = dloss_dY
        for i in range(len(self._layers) - 2, -1, -1):
            dZ = g * derivatives[i]
            self.SetWeights(layer=i, W=dZ @ inputs[i].T, params=dloss_dparams)
            self.SetBiases(layer=i, b=dZ.sum(axis=1), params=dloss_dparams)
            g = self.GetWeights(params=params, layer=i).T @ dZ
        return float(value)

    def BackpropagationMeanSquaredError(self, context, X, Y_desired, dloss_dparams: np.ndarray) -> float:
        """Backpropagation with loss = |Y - Y_desired|^2 / (number of samples)."""
        Y_desired = np.asarray(Y_desired, dtype=float)

        def mse(Y, dloss_dY):
            dloss_dY[:] = 2.0 * (Y - Y_desired) / Y.shape[1]
            return float(np.sum((Y - Y_desired) ** 2) / Y.shape[1])
        return self.Backpropagation(context, X, mse, dloss_dparams)
