"""
attnlab: exact and approximate softmax attention, with the bounds and certificates that say how good they are
===============================================================================================================

The library behind the book *attnlab: approximate softmax attention, audited*. The array functions take their
array library from their inputs (the array API standard through ``array-api-compat``: NumPy, CuPy, …); random
draws come from a generator you pass. ``pip install attnlab`` needs only NumPy, SciPy, array-api-compat and
threadpoolctl; the book's experiments (:mod:`attnlab.audit`) and figure style (:mod:`attnlab.plotting`) need the
``[notebook]`` extra and are never imported by ``import attnlab``.

Below are the names most users want (``attnlab.__all__``); every other public function stays importable from
``attnlab`` and from its module (``attnlab.<folder>.<module>.__all__``, modules in ``attnlab.MODULES``). The folders:
``attnlab.core`` (exact attention, softmax, backends), ``attnlab.approx`` (PDA, projections and JL dimensions, random
features, subquadratic attention), ``attnlab.rank`` (approximation-rank certificates, instances, lattice, sphere and
interaction geometry), ``attnlab.theory`` (perturbation bounds, spectra, gradients, hardness, adversarial search,
sparse-pattern constructions) and ``attnlab.models`` (BERT and Llama heads). The book's API page documents them all.

Exact attention
---------------

   attention              -- softmax(beta Q K^T) V, dense, stable at any temperature
   attention_blocked      -- the same, tile by tile with an online softmax (memory O(L·block))
   attention_matrix       -- the attention matrix softmax(beta Q K^T)
   softmax                -- softmax along an axis, stable at any temperature
   logsumexp              -- log-sum-exp along an axis

Approximations
--------------

   pda_attention          -- projection then low-rank attention (PDA): rank r of softmax of projected logits
   pda_attention_parts    -- the same, with the projection and the factors of the rank-r matrix
   PdaParts               -- the result of pda_attention_parts
   randomized_svd_op      -- randomized SVD of a matrix given only by its products
   SvdFactors             -- the result of randomized_svd_op (it unpacks as U, s, Vt)
   gaussian_projection    -- a d × m Gaussian random projection
   performer_attention    -- Performer's FAVOR+ with m fresh positive random features
   favor_attention        -- FAVOR+ at given feature directions
   draw_omega             -- FAVOR+ feature directions (orthogonal or iid)
   linformer_attention    -- Linformer with random sequence projections (not an estimator of attention)
   attention_1d           -- attention with 1-D queries and keys, every entry within eps, near-linear time
   attention_gauss_1d     -- the same through the fast Gauss transform
   attention_2d           -- attention with 2-D queries and keys within eps, by a k-d tree

Choosing m, r, k and eps
------------------------

   favor_kernel_variance  -- variance of FAVOR+'s kernel estimate with m features: how many features?
   m_required             -- the projected dimension PDA's parameter rule demands
   m_union_exact          -- the smallest JL dimension m for n events, from exact tails
   m_sup_row              -- the smallest m for a row guarantee over any keys in the unit ball
   inner_product_tail     -- exact tail of a projected inner product's error
   energy_count           -- the rank r that holds a fraction of a matrix's energy
   tail_norm              -- the Frobenius error of the best rank-r approximation (Eckart–Young)
   singular_values        -- singular values of a matrix

Bounds
------

   tanh_bound             -- 2 tanh(osc(h)/4): how far softmax moves when its logits move by h
   chain_bounds           -- the bounds from a logit error to the attention output error
   ChainBounds            -- the result of chain_bounds
   softmax_kernel         -- the softmax kernel matrix exp(beta X Y^T)
   SoftmaxKernel          -- the result of softmax_kernel

Certificates
------------

   rank_upper_certificate -- an explicit rank-k matrix within row-ℓ1 error eps (upper bound on the eps-rank)
   rank_lower_certificate -- rows and disjoint column sets that force the eps-rank up (lower bound)
   UpperCertificate       -- the result of rank_upper_certificate
   LowerCertificate       -- the result of rank_lower_certificate
   row_l1_error           -- the row-ℓ1 error max_i ||A_i - B_i||_1
   operator_error         -- the worst output error of B against A for given values
   visible_interaction_dim -- the part of a head's logits that attention can see, and its dimension
   VisibleInteraction     -- the result of visible_interaction_dim

Hardness
--------

   approximate_oracle     -- an eps-approximate attention oracle, for the reductions
   rowsum_search          -- every row sum of exp(Q K^T) from an attention oracle
   RowsumSearch           -- the result of rowsum_search

Sparse patterns
---------------

   construct_sparse_attention -- inputs that make a fixed layer's attention reproduce a sparse target pattern
   SparseAttention        -- the result of construct_sparse_attention
   ConstructionFailedWarning  -- issued when that construction meets no precision
   pattern_profile        -- nonzeros per row and column (nnz) and ratio variation gamma of a target pattern
   PatternProfile         -- the result of pattern_profile
   element_ratio_error    -- how well an attention matrix preserves a target's element ratios
   RatioError             -- the result of element_ratio_error

Models
------

   bert_heads             -- every head's Q, K, V and attention weights of a BERT encoder (NumPy forward pass)
   BertHeads              -- the result of bert_heads
   load_bert              -- read a BERT encoder's weights and shape
   BertCheckpoint         -- the result of load_bert
   llama_heads            -- every head's Q, K, V and causal weights of a Llama-type decoder
   LlamaHeads             -- the result of llama_heads
   load_llama_gguf        -- read a Llama-type GGUF file
   LlamaCheckpoint        -- the result of load_llama_gguf

Backends and search
-------------------

   get_array_module       -- the array module (numpy or cupy) of some arrays
   default_xp             -- the array module of the default backend
   to_numpy               -- an array as NumPy, copied from the device if needed
   make_rng               -- a seeded generator of the default (or a given) backend
   sup_ratio              -- maximise a ratio over inputs from many starts (adversarial search)
   SupResult              -- the result of sup_ratio
"""
from .core import *  # noqa: F403
from .approx import *  # noqa: F403
from .rank import *  # noqa: F403
from .theory import *  # noqa: F403
from .models import *  # noqa: F403

__version__ = "0.1.0"

#: The library's modules, one topic each, in their folders (core, approx, rank, theory, models); the union of their
#: ``__all__`` is every public name.
MODULES = (
    "core.exact",
    "core.logits",
    "core.backend",
    "approx.pda",
    "approx.projection",
    "approx.jl",
    "approx.random_features",
    "approx.subquadratic",
    "rank.certificates",
    "rank.instances",
    "rank.interaction",
    "rank.lattice",
    "rank.sphere",
    "theory.perturbation",
    "theory.spectrum",
    "theory.gradient",
    "theory.hardness",
    "theory.adversarial",
    "theory.sparse_patterns",
    "models.encoder",
    "models.decoder",
)
#: The modules' paths before they moved into folders: each still imports (``attnlab/<old>.py`` makes the old name the
#: same module object as the new one), and ``attnlab.<old>`` works after ``import attnlab`` as before.
OLD_MODULES = {
    "exact": "core.exact", "logits": "core.logits", "backend": "core.backend", "_validate": "core._validate",
    "pda": "approx.pda", "projection": "approx.projection", "jl": "approx.jl",
    "random_features": "approx.random_features", "subquadratic": "approx.subquadratic",
    "rank_certificates": "rank.certificates", "rank_instances": "rank.instances",
    "rank_interaction": "rank.interaction", "rank_lattice": "rank.lattice", "rank_sphere": "rank.sphere",
    "perturbation": "theory.perturbation", "spectrum": "theory.spectrum", "gradient": "theory.gradient",
    "hardness": "theory.hardness", "adversarial": "theory.adversarial", "sparse_patterns": "theory.sparse_patterns",
    "encoder": "models.encoder", "decoder": "models.decoder",
}


def __getattr__(name):
    if name in OLD_MODULES:
        import importlib  # noqa: PLC0415

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The index of the docstring above: what ``from attnlab import *`` and ``help(attnlab)`` show.
__all__ = [
    # exact attention
    "attention", "attention_blocked", "attention_matrix", "softmax", "logsumexp",
    # approximations
    "pda_attention", "pda_attention_parts", "PdaParts", "randomized_svd_op", "SvdFactors", "gaussian_projection",
    "performer_attention", "favor_attention", "draw_omega", "linformer_attention", "attention_1d", "attention_gauss_1d",
    "attention_2d",
    # choosing m, r, k and eps
    "favor_kernel_variance", "m_required", "m_union_exact", "m_sup_row", "inner_product_tail", "energy_count",
    "tail_norm", "singular_values",
    # bounds
    "tanh_bound", "chain_bounds", "ChainBounds", "softmax_kernel", "SoftmaxKernel",
    # certificates
    "rank_upper_certificate", "rank_lower_certificate", "UpperCertificate", "LowerCertificate", "row_l1_error",
    "operator_error", "visible_interaction_dim", "VisibleInteraction",
    # hardness
    "approximate_oracle", "rowsum_search", "RowsumSearch",
    # sparse patterns
    "construct_sparse_attention", "SparseAttention", "ConstructionFailedWarning", "pattern_profile", "PatternProfile",
    "element_ratio_error", "RatioError",
    # models
    "bert_heads", "BertHeads", "load_bert", "BertCheckpoint", "llama_heads", "LlamaHeads", "load_llama_gguf",
    "LlamaCheckpoint",
    # backends and search
    "get_array_module", "default_xp", "to_numpy", "make_rng", "sup_ratio", "SupResult",
]
