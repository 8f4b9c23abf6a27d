"""Running an attention module once and recording what PyTorch did: its attention weights and the shape trace
(shape, strides, contiguous of each tensor on the query's path), read from the tensors PyTorch produced through a
__torch_function__ mode, never recomputed.

Modules: the lessons' MultiHeadAttention (forward(q, k, v, mask) or forward(x, mask), returning the output and
the weights, or the output alone: the weights are then the softmax PyTorch computed), torch.nn.MultiheadAttention
(need_weights, per head; batch_first either way) and nn.TransformerEncoderLayer (its self_attn on the input it
gets). The module runs in eval mode without gradients; its training flag is restored after.
"""

import inspect

from ._safetensors import heads_of


class ModuleError(ValueError):
    """The module or its input does not fit: the message names the problem."""


def _torch():
    try:
        import torch
    except ImportError:
        raise ModuleError("mx.show(module, x) runs a PyTorch module, but torch is not installed here.") from None
    return torch


def _key(t):
    # a tensor's identity as data: two Python objects for the same memory and layout are the same step
    return (t.data_ptr(), tuple(t.shape), t.stride(), t.storage_offset())


def _tensors(value):
    torch = _torch()
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(v)]
    return []


def _args_text(args, kwargs):
    def one(a):
        if isinstance(a, (list, tuple)):
            return "(" + ", ".join(one(x) for x in a) + ("," if len(a) == 1 else "") + ")"
        return "·" if hasattr(a, "data_ptr") else repr(a)

    parts = [one(a) for a in args] + ["%s=%s" % (k, one(v)) for k, v in kwargs.items()]
    return ", ".join(parts)


class Event:
    __slots__ = ("name", "inputs", "outputs", "call")

    def __init__(self, name, inputs, outputs, call):
        self.name, self.inputs, self.outputs, self.call = name, inputs, outputs, call


def _recorder():
    torch = _torch()
    from torch.overrides import TorchFunctionMode

    class Recorder(TorchFunctionMode):
        """Every torch function and Tensor method the forward calls, with its tensors (kept alive, so their
        memory is not reused and each key stays one tensor's)."""

        def __init__(self):
            super().__init__()
            self.events = []

        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            out = func(*args, **kwargs)
            outs = _tensors(out)
            if outs:
                name = getattr(func, "__name__", str(func))
                method = hasattr(torch.Tensor, name) and args and isinstance(args[0], torch.Tensor)
                call = (
                    ("." + name + "(" + _args_text(args[1:], kwargs) + ")")
                    if method
                    else (_qualified(func) + "(" + _args_text(args, kwargs) + ")")
                )
                self.events.append(Event(name, _tensors(list(args) + list(kwargs.values())), outs, call))
            return out

    return Recorder()


def _qualified(func):
    mod = getattr(func, "__module__", "") or ""
    name = getattr(func, "__name__", str(func))
    if mod.startswith("torch.nn.functional") or name in ("linear",):
        return "F." + name
    return "torch." + name


class _Transparent:
    """While recording, torch.nn.functional's Python functions (F.softmax, F.multi_head_attention_forward, …)
    do not hand themselves to the mode as one call: their bodies run, so the tensor operations inside are
    recorded one by one (PyTorch 1.13 runs a mode's handler with the mode switched off)."""

    NAMES = ("has_torch_function", "has_torch_function_unary", "has_torch_function_variadic")

    def __enter__(self):
        import torch.nn.functional as F

        self.F, self.saved = F, {n: getattr(F, n) for n in self.NAMES if hasattr(F, n)}
        for n in self.saved:
            setattr(F, n, lambda *a, **k: False)
        return self

    def __exit__(self, *exc):
        for n, f in self.saved.items():
            setattr(self.F, n, f)


def _shape(t):
    return list(t.shape)


def _step(t, **fields):
    s = {"shape": _shape(t), "strides": list(t.stride()), "contiguous": bool(t.is_contiguous())}
    s.update(fields)
    return s


def _positional(forward):
    """The forward's parameters: (names of the positional ones, whether it takes mask)."""
    try:
        params = list(inspect.signature(forward).parameters.values())
    except (TypeError, ValueError):
        return None, False
    pos = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return pos, any(p.name == "mask" for p in params) or any(p.kind == p.VAR_KEYWORD for p in params)


def _call_plan(module, x, key, value, mask):
    """→ (the attention module to run, args, kwargs, the input its query path starts from, num_heads or None, kind)."""
    torch = _torch()
    nn = torch.nn
    if isinstance(module, nn.TransformerEncoderLayer):
        sa = module.self_attn
        first = module.norm1(x) if getattr(module, "norm_first", False) else x
        return (
            sa,
            (first, first, first),
            {"attn_mask": mask, "need_weights": True, "average_attn_weights": False},
            first,
            sa.num_heads,
            "nn.TransformerEncoderLayer.self_attn",
        )
    if isinstance(module, nn.MultiheadAttention):
        k = x if key is None else key
        v = k if value is None else value
        return (
            module,
            (x, k, v),
            {"attn_mask": mask, "need_weights": True, "average_attn_weights": False},
            x,
            module.num_heads,
            "nn.MultiheadAttention",
        )
    pos, takes_mask = _positional(module.forward)
    heads = heads_of(module)
    kind = type(module).__name__
    if pos is not None and len(pos) >= 3:  # forward(q, k, v, mask=None)
        k = x if key is None else key
        v = k if value is None else value
        args = (x, k, v)
    else:  # forward(x, mask=None): self-attention only
        if key is not None or value is not None:
            raise ModuleError(
                "%s.forward(%s) takes one input (self-attention): key= and value= do not apply to it."
                % (kind, ", ".join(pos or ["x"]))
            )
        args = (x,)
    kwargs = {}
    if mask is not None:
        if not takes_mask:
            raise ModuleError("%s.forward(%s) takes no mask, but mask= was given." % (kind, ", ".join(pos or [])))
        kwargs["mask"] = mask
    return module, args, kwargs, x, heads, kind


def _produced(events):
    """tensor key → the index of the last event that made it (a step returning its own input makes nothing)."""
    made = {}
    for i, e in enumerate(events):
        ins = {_key(t) for t in e.inputs}
        for t in e.outputs:
            k = _key(t)
            if k not in ins:
                made[k] = i
    return made


DATA_INPUT = {"baddbmm": 1, "addmm": 1, "addbmm": 1}  # ops whose first tensor is not the data (a bias or mask)


def _data_input(e, ins):
    """The input of event e that carries the data (not a bias or mask), among its tensor inputs ins."""
    return ins[min(DATA_INPUT.get(e.name, 0), len(ins) - 1)]


def _query_path(events, made, softmax_index, start):
    """The events from the module's input to the softmax's scores, following each op's data input backward."""
    path, i, start_key = [], softmax_index, _key(start)
    seen = set()
    while i is not None and i not in seen:
        seen.add(i)
        e = events[i]
        if i != softmax_index:
            path.append(i)
        ins = e.inputs
        if not ins:
            break
        t = _data_input(e, ins)
        if _key(t) == start_key:
            break
        i = made.get(_key(t))
        if i is not None and i >= (path[-1] if path else softmax_index):
            break
    return path[::-1]


def _output_path(events, softmax_index):
    """The events from the weights to the module's output: each the first later op whose data input is the last."""
    path, current, i = [], _key(events[softmax_index].outputs[0]), softmax_index + 1
    while i < len(events):
        e = events[i]
        ins = e.inputs
        if ins and _key(_data_input(e, ins)) == current and e.outputs:
            if _key(e.outputs[0]) != current:
                path.append(i)
                current = _key(e.outputs[0])
        i += 1
    return path


LESSON_BEFORE = ["linear", "view", "transpose"]


def _trace(events, start, softmax_index, attended_index, query_path, output_path, kind):
    """The page's trace steps. A lesson-shaped forward (linear, view, transpose; softmax·V; transpose,
    contiguous, view, linear) gets the page's step names (lesson 004's table); any other (nn.MultiheadAttention's)
    gets each recorded PyTorch call as its own step."""
    sm = events[softmax_index].outputs[0]
    attended = events[attended_index].outputs[0]
    before = [events[i] for i in query_path]
    scores_from = next(
        (n for n, e in enumerate(before) if e.name in ("matmul", "bmm", "baddbmm", "einsum")), len(before)
    )
    before = before[:scores_from]
    after = [events[i] for i in output_path if i > attended_index]
    names_after = [e.name for e in after]
    lesson = (
        [e.name for e in before] == LESSON_BEFORE
        and len(before[1].outputs[0].shape) == 4
        and names_after
        in (
            ["transpose", "contiguous", "view", "linear"],
            ["transpose", "contiguous", "reshape", "linear"],
            ["transpose", "reshape", "linear"],
        )
    )
    steps = [_step(start, op="input")]
    if lesson:
        steps += [
            _step(before[0].outputs[0], op="linear"),
            _step(before[1].outputs[0], op="view"),
            _step(before[2].outputs[0], op="transpose"),
            _step(attended, op="attention", weights=_shape(sm)),
            _step(after[0].outputs[0], op="transpose"),
            _step(after[-2].outputs[0], op="contiguous_view"),
            _step(after[-1].outputs[0], op="linear"),
        ]
        return steps
    steps[0] = _step(start, name="Input", expr="query", description="The query as %s got it" % kind)
    for e in before:
        steps.append(_step(e.outputs[0], name="After " + _short(e), expr=e.call, description=""))
    steps.append(
        _step(
            attended,
            name="Attention computation",
            expr="softmax(Q Kᵀ / √d_k) · V",
            description="Every head at once; the weights are [%s]" % ", ".join(map(str, _shape(sm))),
            weights=_shape(sm),
        )
    )
    for e in after:
        steps.append(_step(e.outputs[0], name="After " + _short(e), expr=e.call, description=""))
    return steps


def _short(e):
    return e.call if e.call.startswith(".") else e.call.split("(")[0]


def run_module(module, x, key=None, value=None, mask=None):
    """→ (weights tensor [B, H, T, S] as PyTorch computed it, trace steps, description of the module)."""
    torch = _torch()
    if not isinstance(module, torch.nn.Module):
        raise ModuleError("mx.show(module, x): %r is not a torch.nn.Module." % (type(module).__name__,))
    if not isinstance(x, torch.Tensor):
        raise ModuleError(
            "mx.show(module, x): x must be a torch tensor (the module's input, e.g. [B, S, d_model]); got %s."
            % type(x).__name__
        )
    was_training = module.training
    module.eval()
    try:
        with torch.no_grad():
            target, args, kwargs, start, heads, kind = _call_plan(module, x, key, value, mask)
            recorder = _recorder()
            try:
                # as the student's own call runs (nn.MultiheadAttention may take its fused fast path), then recorded
                plain = target(*args, **kwargs) if kind.startswith("nn.") else None
                with _Transparent(), recorder:
                    result = target(*args, **kwargs)
            except (RuntimeError, ValueError, AssertionError, IndexError) as e:
                raise ModuleError(
                    "%s could not run on x of shape %s: %s" % (kind, list(x.shape), _first_line(e))
                ) from e
    finally:
        module.train(was_training)
    events = recorder.events
    softmaxes = [i for i, e in enumerate(events) if e.name in ("softmax", "_softmax")]
    returned = _returned_weights(result, torch)
    if not softmaxes:
        raise ModuleError(
            "%s's forward computed no softmax, so it has no attention weights to show (it returned %s)."
            % (kind, _describe(result, torch))
        )
    si = softmaxes[-1]
    sm = events[si].outputs[0]
    weights = returned if returned is not None else sm
    weights = _as_bhts(weights, heads, kind, x)
    query_path = _query_path(events, _produced(events), si, start)
    output_path = _output_path(events, si)
    attended_index = next((i for i in output_path if events[i].name in ("matmul", "bmm", "einsum")), None)
    if attended_index is None:
        raise ModuleError(
            "%s's softmax weights were never multiplied with the values: this does not look like attention." % kind
        )
    trace = _trace(events, start, si, attended_index, query_path, output_path, kind)
    if plain is not None:
        fast = plain[0]
        if _step(fast) != {k: trace[-1][k] for k in ("shape", "strides", "contiguous")}:
            # the fast path: one fused kernel whose output is laid out otherwise; its weights are the same numbers
            trace.append(
                _step(
                    fast,
                    name="Output of the fast path",
                    expr="torch._native_multi_head_attention(…)",
                    description="Your call runs as one fused kernel (eval mode, no grad, batch_first "
                    "self-attention); the rows above are the same computation step by step "
                    "(F.multi_head_attention_forward), recorded with the fast path off",
                )
            )
        if plain[1] is not None:
            weights = _as_bhts(plain[1], heads, kind, x)
    return weights, trace, kind


def _first_line(e):
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


def _returned_weights(result, torch):
    if (
        isinstance(result, (tuple, list))
        and len(result) >= 2
        and isinstance(result[1], torch.Tensor)
        and result[1].dim() >= 3
    ):
        return result[1]
    return None


def _describe(result, torch):
    if isinstance(result, torch.Tensor):
        return "one tensor of shape %s" % list(result.shape)
    if isinstance(result, (tuple, list)):
        return "%d values" % len(result)
    return type(result).__name__


def _as_bhts(w, heads, kind, x):
    if w.dim() == 4:
        return w
    if w.dim() == 3 and heads and w.shape[0] % heads == 0:  # [B·H, T, S]: what bmm-based modules compute
        return w.reshape(w.shape[0] // heads, heads, w.shape[1], w.shape[2])
    raise ModuleError(
        "%s's attention weights have shape %s; mx.show needs them per head, [B, H, T, S]." % (kind, list(w.shape))
    )
