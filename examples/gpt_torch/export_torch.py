"""How gpt_opset13.onnx and gpt_opset17.onnx were made: torch.onnx.export (torch 2.13, the TorchScript
exporter) of a decoder-only transformer written the way nanoGPT writes one: nn.Embedding for tokens
(int64 ids into a Gather) and learned positions, causal self-attention (one Linear for q, k, v,
split; a tril mask through Where), GELU, LayerNorm, a Linear head. Vocabulary 64, width 32, 2 heads,
2 layers, context 8.

    python export_torch.py 13 gpt_opset13.onnx none   # layer norm as primitives, GELU through Erf
    python export_torch.py 17 gpt_opset17.onnx tanh   # LayerNormalization, GELU through Tanh
    python export_torch.py 17 gpt_opset17_dynamic_batch.onnx tanh dynamic   # batch axis a dim_param

torch is not a dependency of the project: the .onnx files are committed (tests/onnx/test_onnx_torch_gpt.py)."""
import torch, torch.nn as nn, sys
torch.manual_seed(0)
class Block(nn.Module):
    def __init__(s, d, h, T, ln_prim):
        super().__init__()
        s.ln1 = nn.LayerNorm(d); s.ln2 = nn.LayerNorm(d)
        s.qkv = nn.Linear(d, 3*d); s.proj = nn.Linear(d, d)
        s.fc = nn.Linear(d, 4*d); s.out = nn.Linear(4*d, d)
        s.h = h; s.ln_prim = ln_prim
        s.register_buffer("mask", torch.tril(torch.ones(T, T)).view(1, 1, T, T))
    def ln(s, m, x):
        if not s.ln_prim: return m(x)
        mu = x.mean(-1, keepdim=True); var = ((x-mu)**2).mean(-1, keepdim=True)
        return (x-mu)/torch.sqrt(var+1e-5)*m.weight + m.bias
    def forward(s, x):
        B, T, C = x.shape
        q, k, v = s.qkv(s.ln(s.ln1, x)).split(C, dim=2)
        q = q.view(B, T, s.h, C//s.h).transpose(1, 2)
        k = k.view(B, T, s.h, C//s.h).transpose(1, 2)
        v = v.view(B, T, s.h, C//s.h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (C//s.h) ** 0.5)
        att = att.masked_fill(s.mask[:, :, :T, :T] == 0, float('-inf'))
        att = torch.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        x = x + s.proj(y)
        x = x + s.out(nn.functional.gelu(s.fc(s.ln(s.ln2, x)), approximate=sys.argv[3]))
        return x
class GPT(nn.Module):
    def __init__(s, V=64, d=32, h=2, T=8, L=2, ln_prim=False):
        super().__init__()
        s.wte = nn.Embedding(V, d); s.wpe = nn.Embedding(T, d)
        s.blocks = nn.ModuleList([Block(d, h, T, ln_prim) for _ in range(L)])
        s.lnf = nn.LayerNorm(d); s.head = nn.Linear(d, V, bias=False)
    def forward(s, idx):
        B, T = idx.shape
        pos = torch.arange(0, T, dtype=torch.long)
        x = s.wte(idx) + s.wpe(pos)
        for b in s.blocks: x = b(x)
        return s.head(s.lnf(x))
opset = int(sys.argv[1]); out = sys.argv[2]
m = GPT(ln_prim=(opset == 13)).eval()
with torch.no_grad():
    m.wte.weight.normal_(0, 0.1); m.wpe.weight.normal_(0, 0.1)
idx = torch.randint(0, 64, (1, 8))
torch.onnx.export(m, (idx,), out, opset_version=opset, input_names=["input_ids"], output_names=["logits"],
                  dynamic_axes={"input_ids": {0: "batch"}, "logits": {0: "batch"}} if sys.argv[4:] == ["dynamic"] else None,
                  dynamo=False)
print("ok", out)
