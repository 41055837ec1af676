"""The claims registry: every claim of the five seed documents, where it is checked, and its computed verdict.

``python -m attnlab.audit --json [--scale smoke|book|paper] [--ids ID ...]``
prints the registry with each claim's verdict and the numbers behind it,
running the checks at that scale (``python -m attnlab.claims`` is the same command). Verdicts are cached on disk (:mod:`attnlab.audit.cache`),
keyed by the claim, the scale, the seed, a hash of the attnlab sources and the
NumPy/SciPy versions, so the chapter and the verdicts page of one build compute
each verdict once.
"""
from __future__ import annotations

import argparse
import difflib
import importlib
import numbers
import json
import sys
from dataclasses import asdict, dataclass

from .cache import atomic_write, cache_dir, source_hash
from .scale import SCALES, get_scale
from .verdict import VERDICTS, Verdict

__all__ = ["Claim", "CLAIMS", "SEEDS", "seed_name", "get_claim", "evaluate", "evaluate_all", "main"]

S000, S001, S002, S003, S004 = (
    "000_079472ed639fa873.txt", "001_9351d039edbc172e.txt", "002_29d1a1f10ce2fd19.txt",
    "003_c088f2a4bad3ba84.txt", "004_20732410aa8a988a.txt",
)
JL = "notebooks/01-jl"
JL_DIMENSION = "notebooks/01-jl-dimension"
JL_SCALING = "notebooks/01-jl-scaling"

#: What each seed document is, for readers: a short name ("the PDA draft, seed 000") and one line from
#: ``claims.md`` and the document's own title.
SEEDS: dict[str, tuple[str, str]] = {
    S000: ("PDA draft", "“Projection–Decomposition Attention (PDA)”: a paper draft plus a “corrected proof”"),
    S001: ("low-rank tutorial", "a tutorial on the low-rank structure of attention, Linformer and Performer"),
    S002: ("sparse-patterns summary", "a summary of Likhosherstov et al. 2021, “On the expressive power of "
           "self-attention matrices”"),
    S003: ("any-temperature notes", "reading notes on Gupta, Huang, Saha, Xu, Ye 2025 (arXiv 2505.14840), "
           "“Subquadratic algorithms and hardness for attention with any temperature”"),
    S004: ("approximation-rank notes", "reading notes on “The approximation rank of softmax attention: sharp "
           "geometric laws and robust interaction dimension” (arXiv 2608.28150)"),
}


def seed_name(seed: str) -> str:
    """The name a reader meets for a seed file, the document named by what it is: ``'the PDA draft'``.

    Examples
    --------
    >>> from attnlab.audit.claims import S000, seed_name
    >>> seed_name(S000)
    'the PDA draft'
    """
    if not isinstance(seed, str) or seed not in SEEDS:
        raise ValueError(f"seed must be one of the seed files {sorted(SEEDS)}, got {seed!r}")
    return f"the {SEEDS[seed][0]}"


@dataclass(frozen=True)
class Claim:
    """One claim: its stable ID, where it is printed, what it says, and who checks it.

    ``chapter`` is the book page (docname) that checks it and ``check`` the
    ``module:function`` that computes its verdict; both are ``None`` while the
    claim is pending.
    """

    id: str
    seed: str
    section: str
    statement: str
    chapter: str | None = None
    check: str | None = None


CLAIMS: tuple[Claim, ...] = (
    # ---- PDA, seed 000
    Claim("PDA-alg", S000, "Algorithm 2.1; second half §2.1",
          "P ∈ R^{d×m}, P_ij ~ N(0,1/m); S̃ = (QP)(KP)ᵀ/√m; Ã = rowsoftmax(S̃); Ã_r its best rank-r approximation; "
          "Õ_r = Ã_r V (m = 128 or 256, r = 32 or 64). The second half (and the draft's own §3.3) uses "
          "S̃_ij = √d·⟨Pq_i, Pk_j⟩, q = Q/√d: which scaling estimates S without bias, and what does the other do?",
          JL_SCALING, "attnlab.audit.jl:check_pda_alg"),
    Claim("PDA-jl", S000, "Thm 3.1 (both halves)",
          "For unit u, v and ε ∈ (0, 1/2): Pr(|⟨Pu,Pv⟩ − ⟨u,v⟩| ≥ ε) ≤ 4·exp(−mε²/8), P ∈ R^{m×d} with N(0,1/m) entries.",
          JL, "attnlab.audit.jl:check_pda_jl"),
    Claim("PDA-row", S000, "Thm 3.2; second half Thm 3.1",
          "m ≥ (8d/ε²)·log(2L/δ) ⇒ with probability ≥ 1−δ, max_j |S̃_ij − S_ij| ≤ ε for a fixed row i "
          "(the proof reaches log(4L/δ) and 'simplifies' it to log(2L/δ)).",
          JL_DIMENSION, "attnlab.audit.jl:check_pda_row"),
    Claim("PDA-global", S000, "Thm 3.3; second half Thm 4.1",
          "m ≥ (8d/ε²)·log(2L²/δ) ⇒ with probability ≥ 1−δ, |S̃_ij − S_ij| ≤ ε for all i, j (the proof reaches "
          "log(4L²/δ)); both theorems are stated for any ε > 0 while the JL step needs ε/√d < 1/2.",
          JL_DIMENSION, "attnlab.audit.jl:check_pda_global"),
    Claim("PDA-lip", S000, "Lemma 3.4; second half Lemma 3.2",
          "‖softmax(x) − softmax(y)‖₁ ≤ 2‖x − y‖_∞ (proof via the Jacobian diag(f) − ffᵀ).",
          "notebooks/02-softmax-stability", "attnlab.audit.softmax_stability:check_pda_lip"),
    Claim("PDA-chain", S000, "Thms 3.5–3.7; second half Thms 3.3, 3.4, 4.2",
          "Row ℓ1 error ≤ 2ε; ‖A − Ã‖_F ≤ 2ε√L; ‖O − Õ‖_F ≤ 2ε√L·‖V‖_F; per row ‖o_i − õ_i‖₂ ≤ 2ε‖V‖_F.",
          "notebooks/02-softmax-chain", "attnlab.audit.softmax_stability:check_pda_chain"),
    Claim("PDA-ey", S000, "§3.6; second half §5.1–5.2",
          "‖Ã − Ã_r‖_F = sqrt(Σ_{k>r} σ_k²); if σ_k ≤ C·k^(−α), α > 1, then ‖Ã − Ã_r‖_F ≤ C·r^(−(α−1/2))/√(2α−1); "
          "the singular values of the attention matrices Ã of pretrained Transformers decay as such a power law "
          "(empirical assumption 5.1, l. 320–321).",
          "notebooks/12-real-heads", "attnlab.audit.real_heads:check_pda_ey"),
    Claim("PDA-total", S000, "Thm 3.8; second half Thm 5.2",
          "‖O − Õ_r‖_F ≤ (2ε√L + C·r^(−(α−1/2))/√(2α−1))·‖V‖_F.",
          "notebooks/04-pda-bound", "attnlab.audit.pda:check_pda_total"),
    Claim("PDA-time", S000, "§4.1",
          "Time O(Ldm + L²m + L²r·log r + Lr·d_v), faster than O(L²d) because m ≪ d (while recommending m = 128 or 256); "
          "'the dominant term is L²m' although r·log₂r = 384 > m = 128 at r = 64; the total drops an Lr² term.",
          "notebooks/04-pda-cost", "attnlab.audit.pda:check_pda_time"),
    Claim("PDA-space", S000, "§4.2", "Space O(Ld + Lm + Lr), with S̃ streamed.", "notebooks/04-pda-cost", "attnlab.audit.pda:check_pda_space"),
    Claim("PDA-param", S000, "§5.1; second half §6.2",
          "Relative error η needs m ≥ (128dL/η²)·log(2L²/δ): m grows linearly in L.",
          "notebooks/04-pda-bound", "attnlab.audit.pda:check_pda_param"),
    Claim("PDA-headline", S000, "§5, §6; second half §7",
          "At m = 128, r = 32 PDA reaches < 1% relative error ‖O − Õ_r‖_F/‖V‖_F; the actual error is far below the "
          "worst-case bound; the four planned experiments of §5.2/§7.",
          "notebooks/04-pda", "attnlab.audit.pda:check_pda_headline"),
    # ---- low-rank tutorial, seed 001
    Claim("LR-rank", S001, "low-rank structure of QKᵀ", "rank(QKᵀ) ≤ min(n, d_k).", "notebooks/03-spectrum-rank", "attnlab.audit.spectrum:check_lr_rank"),
    Claim("LR-cutoff", S001, "interactive demo",
          "With Gaussian Q, K and d_k ≪ n the singular values of softmax(QKᵀ/√d_k) drop to zero after the d_k-th.",
          "notebooks/03-spectrum-rank", "attnlab.audit.spectrum:check_lr_cutoff"),
    Claim("LR-energy", S001, "softmax sharpening",
          "Sharpening lowers the effective rank further; at d_k = 64 usually 5–10 singular values hold over 90% of the "
          "energy (said of attention in practice; the passage takes rank(A) = d_k = 64).",
          "notebooks/12-real-heads", "attnlab.audit.real_heads:check_lr_energy"),
    Claim("LR-kernel", S001, "kernel view", "exp(qᵀk/√d) is a positive-definite kernel.", "notebooks/03-spectrum-kernel",
          "attnlab.audit.spectrum:check_lr_kernel"),
    Claim("LR-linformer", S001, "Linformer Theorem 1",
          "k = Ω(d log d/ε²) random projection rows suffice for ‖softmax(QKᵀ/√d) − softmax(Q(EK)ᵀ/√d)‖ ≤ ε; "
          "k = n/4 or n/8 loses almost nothing.",
          "notebooks/10-random-features-linformer", "attnlab.audit.random_features:check_lr_linformer"),
    Claim("LR-favor", S001, "Performer / FAVOR+",
          "φ(x) = exp(−‖x‖²/2)/√m·[exp(ω_iᵀx)]_i, ω_i ~ N(0, I), gives E[φ(q)ᵀφ(k)] = exp(qᵀk); orthogonal ω lower the "
          "variance; the identity as first displayed (l. 227) and as derived; '+ means orthogonal', with ω rows of an "
          "orthogonal matrix (l. 243); q, k scaled by d^(−1/4); cost O(n·m·d_k); causal via prefix sums; m = O(d log d), "
          "in practice 2d to 4d.",
          "notebooks/10-random-features", "attnlab.audit.random_features:check_lr_favor"),
    Claim("LR-example", S001, "worked example",
          "q = (1,0), k = (0.5,0.5), ω₁ = (1,0), ω₂ = (0,1) gives 1.4478 against exp(0.5) = 1.6487 (about 12% error).",
          "notebooks/10-random-features-bias", "attnlab.audit.random_features_bias:check_lr_example"),
    # ---- sparse patterns, seed 002
    Claim("SP-approx", S002, "main theorem",
          "Any matrix with ≤ k nonzeros per row and column and bounded ratio variation γ is approximated, preserving "
          "element ratios, by softmax(X W_Q W_Kᵀ Xᵀ) with hidden size d = O(log L) (constructive proof).",
          "notebooks/11-sparse-patterns", "attnlab.audit.sparse_patterns:check_sp_approx"),
    Claim("SP-exp", S002, "experiments",
          "L from 512 to 3072: the smallest working d grows like log L, far below the bound; resampling matters little; "
          "the causal case behaves the same.",
          "notebooks/11-sparse-patterns-runs", "attnlab.audit.sparse_patterns:check_sp_exp"),
    # ---- any temperature, seed 003
    Claim("AT-1d", S003, "Lemma 3.1 / Algorithm 1",
          "d = 1: windowed polynomial approximation with prefix sums gives entrywise error ε in time Õ(n·polylog(B/ε)).",
          "notebooks/09-any-temperature", "attnlab.audit.any_temperature:check_at_1d"),
    Claim("AT-fixed-d", S003, "Thm 1.3",
          "Fixed d in Õ(n^(2−1/d)·polylog(B/ε)) via halfspace range searching.",
          "notebooks/09-any-temperature-fixed-d", "attnlab.audit.any_temperature:check_at_fixed_d"),
    Claim("AT-lowrank", S003, "Thm 1.4",
          "min(rank Q, rank K) = r = O(1): Q' = U_Q, K' = K V_Q give Q'K'ᵀ = QKᵀ; the K'ᵀ = V_Qᵀ U_K V_Kᵀ that the notes "
          "say is printed on p. 17 of the paper does not multiply; the time bound's proof uses max(r_Q, r_K), and V "
          "keeps its d columns.",
          "notebooks/06-hardness-lowrank", "attnlab.audit.hardness_lowrank:check_at_lowrank"),
    Claim("AT-grad", S003, "Thm 4.3",
          "Gradient of ½‖FH − E‖_F², F = rowsoftmax(A₁XA₂ᵀ): A₁ᵀ(F∘G − diag(r)·F)A₂ (printed: F·diag((F∘Gᵀ)·1)); "
          "d + 2 attention calls suffice.",
          "notebooks/05-gradient", "attnlab.audit.gradient:check_at_grad"),
    Claim("AT-sentinel", S003, "Lemma 5.1",
          "A sentinel key with score ln c_i makes the output S_i/(S_i + c_i); the new coordinate reaches O(log n + dB²).",
          "notebooks/06-hardness", "attnlab.audit.hardness:check_at_sentinel"),
    Claim("AT-maxip", S003, "Lemma 5.3", "Scores C₀·(a_i·b_j): log(S_i)/C₀ rounds to max_j a_i·b_j.",
          "notebooks/06-hardness-decoders", "attnlab.audit.hardness_decoders:check_at_maxip"),
    Claim("AT-ov", S003, "Eq. (5)",
          "k = 1/(10n) (the notes' choice; the paper uses k = γ/n), sentinel c = 1/2: no orthogonal pair ⇒ o_i ≤ 1/6; "
          "an orthogonal pair ⇒ o_i ≥ 2/3.",
          "notebooks/06-hardness-decoders", "attnlab.audit.hardness_decoders:check_at_ov"),
    Claim("AT-log2", S003, "Thm 5.7", "Scaling Q and K by log 2 gives scores (log 2)²·a·b; e^((log 2)²) ≈ 1.6168, not 2.",
          "notebooks/06-hardness-parity", "attnlab.audit.hardness_parity:check_at_log2"),
    Claim("AT-temp", S003, "temperature remark", "Temperature T absorbs into the inputs: B_T = max(B, B/√T).",
          "notebooks/06-hardness-lowrank", "attnlab.audit.hardness_lowrank:check_at_temp"),
    # ---- approximation rank, seed 004
    Claim("AR-op", S004, "row-ℓ1 operator identity",
          "max_i ‖A_i − B_i‖₁ = sup over values with max_j ‖v_j‖ ≤ 1 of max_i ‖Σ_j (A_ij − B_ij) v_j‖, any norm.",
          "notebooks/07-rank-upper", "attnlab.audit.rank_upper:check_ar_op"),
    Claim("AR-tanh", S004, "Cohen–Fausti inequality", "‖softmax(x + h) − softmax(x)‖₁ ≤ 2·tanh(osc(h)/4), sharp.",
          "notebooks/02-softmax-stability", "attnlab.audit.softmax_stability:check_ar_tanh"),
    Claim("AR-quotient", S004, "visible interaction dimension",
          "The attention matrix is an r-dimensional weighted Gibbs family, r = dim span{P_U(k_j − k_1)}; r = 0 gives rank one.",
          "notebooks/07-rank-upper", "attnlab.audit.rank_upper:check_ar_quotient"),
    Claim("AR-upper", S004, "upper law", "r_ε(A) ≤ min{n, C_r(1 + Γ/ε²)^(r/2)}, Γ = β·ρ_Q·ρ_K (Chebyshev radii), via a support body, a Bregman/KL "
          "identity, polytope approximation and Pinsker (with t = ε²/γ the gap gives ℓ1 ≤ √2·ε).",
          "notebooks/07-rank-upper-worst", "attnlab.audit.rank_upper_worst:check_ar_upper"),
    Claim("AR-sphere-ball", S004, "geometric laws", "Worst case on S^(d−1): rank ~ β^((d−1)/2); on B^d: β^(d/2).",
          "notebooks/07-rank-upper-worst", "attnlab.audit.rank_upper_worst:check_ar_sphere_ball"),
    Claim("AR-lower", S004, "lattice lower bound", "Lattice construction gives rank ≥ M ≍ β^(d/2).",
          "notebooks/08-rank-lower", "attnlab.audit.rank_lower:check_ar_lower"),
    Claim("AR-synthetic", S004, "synthetic experiments",
          "Fitted slopes of log(rank certificate) vs log β within 2–8% of (d−1)/2 (sphere) and d/2 (ball).",
          "notebooks/08-rank-lower", "attnlab.audit.rank_lower:check_ar_synthetic"),
    Claim("AR-svd", S004, "robust version",
          "Residual τ_W and the SVD bridge r_SVD_int(τ); τ is an output-error tolerance, not explained variance.",
          "notebooks/07-rank-upper-robust", "attnlab.audit.rank_upper_robust:check_ar_svd"),
    Claim("AR-bert", S004, "BERT calibration",
          "84 heads × n ∈ {64,128,256} × 5 temperatures × ε ∈ {0.15,0.25,0.35}: agreement 1.57e−6; correlations "
          "0.574 / 0.606; 41.9% of heads with visible dimension 63–64 have a smaller SVD effective dimension (elsewhere "
          "called a 41.9% 'reduction').",
          "notebooks/12-real-heads-rank", "attnlab.audit.real_heads:check_ar_bert"),
    Claim("AR-nospeed", S004, "remark", "Low approximation rank implies neither sparsity nor an arithmetic speed-up.",
          "notebooks/07-rank-upper", "attnlab.audit.rank_upper:check_ar_nospeed"),
    # ---- found on a second reading (claims.md, 2026-11-30)
    Claim("PDA-def", S000, "second half §2 (l. 207)",
          "S̃_ij = √d·⟨Pq_i, Pk_j⟩ = (√d/m)·Σ_k (Pq_i)_k(Pk_j)_k: are the two expressions equal, and which one estimates S "
          "without bias for P with N(0, 1/m) entries?",
          JL_SCALING, "attnlab.audit.jl:check_pda_def"),
    Claim("PDA-amplify", S000, "l. 193",
          "Softmax's exponential may amplify the error, especially when there are very large values (against Lemma 3.4).",
          "notebooks/02-softmax-amplify", "attnlab.audit.softmax_stability:check_pda_amplify"),
    Claim("PDA-cubic", S000, "second half (l. 355, 385)",
          "With m from the parameter rule, O(L²m) becomes O(L³), the same order as standard attention.",
          "notebooks/04-pda-speed", "attnlab.audit.pda:check_pda_cubic"),
    Claim("PDA-speed", S000, "abstract and conclusion (l. 3, 165)",
          "'Experiments show' PDA markedly reduces the cost of attention and makes million-length sequences feasible "
          "(no experiment is reported).",
          "notebooks/04-pda-speed", "attnlab.audit.pda:check_pda_speed"),
    Claim("LR-sparse", S001, "l. 62",
          "A 1024-token sequence whose tokens each attend to 3–5 others gives an attention matrix that can obviously be "
          "approximated well by a low-rank matrix.",
          "notebooks/03-spectrum-sparse", "attnlab.audit.spectrum:check_lr_sparse"),
    Claim("LR-wide", S001, "l. 77",
          "When d_k ≥ n the singular values of the demo's attention matrix still decay fast.",
          "notebooks/03-spectrum-sparse", "attnlab.audit.spectrum:check_lr_wide"),
    Claim("LR-cost", S001, "cost tables (l. 161–167, 256, 295)",
          "Linformer time O(nk·d_k) (no memory figure given); Performer time O(nmd) and memory O(nm + m·d_k); both "
          "faster than standard attention.",
          "notebooks/10-random-features-linformer", "attnlab.audit.random_features:check_lr_cost"),
    Claim("SP-robust", S002, "l. 11, 28, 34",
          "The construction runs in polynomial time and is robust to the sparsity k and the ratio variation γ.",
          "notebooks/11-sparse-patterns-runs", "attnlab.audit.sparse_patterns:check_sp_robust"),
    Claim("SP-tight", S002, "l. 6, 34",
          "The smallest working d sits far below the bound, said to verify the tightness of the theory.",
          "notebooks/11-sparse-patterns-inputs", "attnlab.audit.sparse_patterns_inputs:check_sp_tight"),
    Claim("AT-search", S003, "Claim 5.2 (l. 125)",
          "Binary search over the grid (1 + η)^f finds the row sums in O(log log n + log(dB/η)) rounds; an additive "
          "oracle error O(η) still separates (1 ± η)c_i.",
          "notebooks/06-hardness-bounds", "attnlab.audit.hardness_bounds:check_at_search"),
    Claim("AT-precision", S003, "Thm 4.3 (l. 107, 114), Cor. 4.4",
          "The attention oracle needs precision ε/Θ(ndB³); ‖H‖_∞ ≤ dB² and ‖diag(H_{:,p})A₂‖_∞ ≤ dB³ (no bound on X).",
          "notebooks/05-gradient-precision", "attnlab.audit.gradient:check_at_precision"),
    Claim("AT-parity", S003, "Lemma 5.8 (l. 142)",
          "Keeping each key independently with probability 1/2, in a row with at least one orthogonal key the number "
          "of orthogonal keys kept is odd with probability 1/2 (per row; repeated O(log n) times).",
          "notebooks/06-hardness-parity", "attnlab.audit.hardness_parity:check_at_parity"),
    Claim("AR-coarse", S004, "l. 160",
          "A Lipschitz × ‖h‖ perturbation bound would make the residual threshold τ_W an order of magnitude coarser "
          "than 2·tanh(osc(h)/4).",
          "notebooks/07-rank-upper-coarse", "attnlab.audit.rank_upper_coarse:check_ar_coarse"),
    Claim("AR-rlower", S004, "l. 96",
          "A matching lower bound β^(r/2) in the interaction dimension r (the exponent r/2 is minimax-sharp), and the "
          "sphere's lower bound.",
          "notebooks/08-rank-lower-counts", "attnlab.audit.rank_lower:check_ar_rlower"),
    Claim("AR-count", S004, "l. 106, 128, 162",
          "17,850,625 message states ≈ 10^88946 tokens for the largest ball test; message centres (b√β)^d in one place, "
          "(b√β/L)^d in another.",
          "notebooks/08-rank-lower-counts", "attnlab.audit.rank_lower:check_ar_count"),
    Claim("AR-const", S004, "l. 136",
          "The trigger τ^width > ε/3, and the 2^O(r) factor in C_r (at which r is the upper law vacuous, above n?).",
          "notebooks/07-rank-upper-coarse", "attnlab.audit.rank_upper_coarse:check_ar_const"),
    # ---- found on a third reading (claims.md, 2026-12-01)
    Claim("PDA-norm", S000, "l. 49, 51 (also 199, 224)",
          "Layer normalisation makes ‖Q_i‖₂ ≈ √d and ‖K_j‖₂ ≈ √d, 'hence' q = Q/√d and k = K/√d satisfy ‖q_i‖, ‖k_j‖ ≤ 1, "
          "the premise of every PDA bound (|S_ij| ≤ √d, the unit-vector JL tail).",
          "notebooks/12-real-heads-rank", "attnlab.audit.real_heads:check_pda_norm"),
    Claim("PDA-lrcost", S000, "l. 14; step 4, l. 29",
          "The rank-r truncation 'further reduces the computational burden': forming Ã_r and Ã_r·V costs less than "
          "Ã·V (O(L²d_v)), by the draft's own cost model (L²r·log r).",
          "notebooks/04-pda-cost", "attnlab.audit.pda:check_pda_lrcost"),
    Claim("PDA-rsvd", S000, "l. 29, 100, 122; second half l. 314",
          "The error analysis uses the exact Eckart–Young truncation while the cost analysis prices a randomized SVD "
          "(O(L²r·log r + Lr²)): does the randomized output meet the Eckart–Young equality, or what does an exact "
          "truncation cost?",
          "notebooks/03-spectrum", "attnlab.audit.spectrum:check_pda_rsvd"),
    Claim("PDA-fixed-m", S000, "l. 150, 165, 359, 365, 387",
          "In practice a fixed m (128 or 256), independent of L, gives a good approximation (against the worst-case "
          "rule m ∝ L).",
          "notebooks/04-pda-bound", "attnlab.audit.pda:check_pda_fixed_m"),
    Claim("PDA-sqrtL", S000, "l. 192, 308",
          "The √L factor of ‖A − Ã‖_F ≤ 2ε√L holds in the worst case, but for attention rows (row sums 1, most entries "
          "small) the amplification 'may be far smaller than √L'.",
          "notebooks/02-softmax-chain", "attnlab.audit.softmax_stability:check_pda_sqrtl"),
    Claim("PDA-mL", S000, "l. 191",
          "'The √d factor in the projection bound forces m = O(L)' for the total error not to grow with L.",
          JL_SCALING, "attnlab.audit.jl:check_pda_ml"),
    Claim("PDA-memory", S000, "l. 3, 9, 138, 165",
          "Standard attention needs O(L²) memory; PDA's memory is O(Ld + Lm) (abstract), O(Ld + Lm + Lr) (§4.2), "
          "O(Ld) (conclusion).",
          "notebooks/04-pda-cost", "attnlab.audit.pda:check_pda_memory"),
    Claim("LR-onehot", S001, "l. 60",
          "When softmax makes each row close to one-hot, 'the set of one-hot vectors spans a space of very low "
          "dimension' (the mechanism offered for low rank).",
          "notebooks/03-spectrum-rank", "attnlab.audit.spectrum:check_lr_onehot"),
    Claim("LR-mercer", S001, "l. 123",
          "The softmax kernel's (Mercer) eigenvalues decay fast, which is the low-rankness of attention matrices.",
          "notebooks/03-spectrum-kernel", "attnlab.audit.spectrum:check_lr_mercer"),
    Claim("LR-unbiased", S001, "l. 291, comparison table",
          "Performer's guarantee is 'an unbiased estimate based on the Gaussian identity': is the attention output "
          "unbiased, or only the kernel?",
          "notebooks/10-random-features-bias", "attnlab.audit.random_features_bias:check_lr_unbiased"),
    Claim("LR-kdk", S001, "l. 171, 177",
          "The projection size k 'depends only on d_k, not on n', because rank(QKᵀ) ≤ d_k bounds the intrinsic "
          "dimension of the attention matrix at any length; cited as Linformer's Theorem 1, §3.",
          "notebooks/03-spectrum-sparse", "attnlab.audit.spectrum:check_lr_kdk"),
    Claim("SP-causal", S002, "l. 7, 30, 34",
          "The approximation theorem extends to causal (lower-triangular) patterns with the same logarithmic "
          "dependence on L.",
          "notebooks/11-sparse-patterns", "attnlab.audit.sparse_patterns:check_sp_causal"),
    Claim("AT-cancel", S003, "l. 170; 67",
          "Narrowing the window does not remove the cancellation of large powers in the polynomial expansion (prefix "
          "moments Σ k^b v in floating point): stable bases and precision management are needed.",
          "notebooks/09-any-temperature-cancel", "attnlab.audit.any_temperature:check_at_cancel"),
    Claim("AT-bigd", S003, "l. 83, 169",
          "The hidden g^{O(d)} is not cheap for large d; no speed-up can be predicted from Thm 1.3 for head "
          "dimensions 64 or 128.",
          "notebooks/09-any-temperature-fixed-d", "attnlab.audit.any_temperature:check_at_bigd"),
    Claim("AT-seth", S003, "Thm 5.4 (l. 131; also 11, 153)",
          "For every δ > 0 there is C such that attention with d = 2^{C·log* n}, polynomial entry bound and a small "
          "constant error needs n^{2−δ} time under SETH.",
          "notebooks/06-hardness-bounds", "attnlab.audit.hardness_bounds:check_at_seth"),
    Claim("AT-ovh", S003, "Thm 5.5 (l. 137–139; also 11, 154)",
          "Under the generalized high-dimensional OV hypothesis, attention with d = poly(n), B = O(√log n), ε = O(1) "
          "needs T_MUL(n, d, n)^{1−o(1)} time.",
          "notebooks/06-hardness-bounds", "attnlab.audit.hardness_bounds:check_at_ovh"),
    Claim("AR-visible", S004, "l. 80, 132",
          "Trained heads are often of full visible dimension (63–64) while most of their variation lies near a "
          "low-dimensional subspace.",
          "notebooks/12-real-heads-rank", "attnlab.audit.real_heads:check_ar_visible"),
)

_BY_ID = {c.id: c for c in CLAIMS}
_BY_FOLDED = {c.id.casefold(): c for c in CLAIMS}


def get_claim(claim_id: str) -> Claim:
    """The registry entry for ``claim_id``, matched without regard to case.

    Raises
    ------
    TypeError
        If ``claim_id`` is not a string.
    KeyError
        If no claim has that ID; the message names it and suggests the closest IDs.

    Examples
    --------
    >>> from attnlab.audit.claims import get_claim
    >>> get_claim("pda-jl").id
    'PDA-jl'
    """
    if not isinstance(claim_id, str):
        raise TypeError(f"claim_id must be a string, got {type(claim_id).__name__}")
    try:
        return _BY_FOLDED[claim_id.strip().casefold()]
    except KeyError:
        close = difflib.get_close_matches(claim_id.strip().casefold(), list(_BY_FOLDED), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(_BY_FOLDED[c].id for c in close)}?" if close else ""
        raise KeyError(f"unknown claim ID {claim_id!r}{hint}") from None


def evaluate(claim_id: str, scale: str | None = None, *, seed: int = 0, cache: bool = True, data=None) -> Verdict:
    """Run the check of ``claim_id`` at ``scale`` with ``seed`` and return its :class:`Verdict`.

    Claims that no chapter checks yet get the verdict ``pending``. ``data``, if given, is handed to the
    check as the result of the experiment it would otherwise run itself; a chapter passes what it computed
    for the same scale and seed, so the work is not done twice (a cached verdict is returned as is).

    With ``cache`` the verdict is stored under ``$ATTNLAB_CACHE_DIR`` (default
    ``~/.cache/attnlab``) and reused while the sources and versions are unchanged.
    """
    claim = get_claim(claim_id)
    scale = get_scale(scale)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if claim.check is None:
        return Verdict(claim.id, "pending", "No chapter checks this claim yet.", scale=scale)
    path = cache_dir() / "verdicts" / f"{claim.id}-{scale}-{seed}-{source_hash()}.json"
    if cache and path.exists():
        return Verdict(**json.loads(path.read_text()))
    module, func = claim.check.split(":")
    check = getattr(importlib.import_module(module), func)
    verdict = check(scale, seed=seed) if data is None else check(scale, seed=seed, data=data)
    if verdict.claim != claim.id:
        raise RuntimeError(f"{claim.check} returned a verdict for {verdict.claim}, not {claim.id}")
    if cache:
        atomic_write(path, verdict.to_json().encode())
    return verdict


def evaluate_all(scale: str | None = None, *, seed: int = 0, cache: bool = True, ids=None,
                 progress: bool = False) -> list[dict]:
    """Registry entries with their verdicts, as plain dicts (the ``--json`` output)."""
    from tqdm import tqdm  # noqa: PLC0415

    claims = [get_claim(i) for i in ids] if ids else list(CLAIMS)
    out = []
    for c in tqdm(claims, desc="claims", disable=not progress):
        out.append({**asdict(c), "verdict": evaluate(c.id, scale, seed=seed, cache=cache).to_dict()})
    return out


_SCALE_HELP = """scales (ATTNLAB_SCALE sets the default, else book):
  smoke  seconds: the sizes the tests run
  book   minutes on a 2-core CPU: the sizes the book is built with (default)
  paper  long: publication sizes, meant for a GPU (an hour or more on a CPU)"""


def _epilog() -> str:
    vocab = "\n".join(f"  {k:<18} {v}" for k, v in VERDICTS.items())
    return f"{_SCALE_HELP}\n\nverdicts:\n{vocab}\n\nclaim IDs are matched without regard to case (e.g. pda-jl)."


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed must be a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"seed must be a non-negative integer, got {text!r}")
    return value


def main(argv=None, prog: str = "python -m attnlab.audit") -> int:
    """The command line: print every claim (or ``--ids``) with its verdict at ``--scale``."""
    ap = argparse.ArgumentParser(prog=prog, description="Every claim of the five seed documents with the verdict "
                                 "its check computes (the registry of attnlab.audit.claims).",
                                 epilog=_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true", help="print JSON (default: one line per claim)")
    ap.add_argument("--scale", type=str.lower, choices=SCALES, default=None,
                    help="smoke, book or paper (see below; default: $ATTNLAB_SCALE, else book)")
    ap.add_argument("--seed", type=_seed, default=0, help="seed of every random draw (default 0)")
    ap.add_argument("--ids", nargs="+", metavar="ID", help="only these claim IDs (any case)")
    ap.add_argument("--no-cache", action="store_true", help="recompute every verdict")
    args = ap.parse_args(argv)
    try:
        ids = [get_claim(i).id for i in args.ids] if args.ids else None
        scale = get_scale(args.scale)
    except (KeyError, ValueError) as exc:
        ap.error(str(exc.args[0]))
    rows = evaluate_all(scale, seed=args.seed, cache=not args.no_cache, ids=ids, progress=not args.json)
    if args.json:
        json.dump(rows, sys.stdout, indent=2, ensure_ascii=False, default=float)
        print()
    else:
        for r in rows:
            print(f"{r['id']:<16} {r['verdict']['verdict']:<18} {r['verdict']['summary']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
