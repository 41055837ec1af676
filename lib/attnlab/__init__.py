"""attnlab: an executable audit of claims about approximate softmax attention."""
from .adversarial import SupResult, sup_ratio
from .attention import attention, attention_blocked, attention_matrix
from .gradient import attention_loss_grad, attention_loss_grad_printed, attention_loss_grad_via_attention
from .backend import default_backend, default_xp, get_array_module, make_rng, to_numpy
from .projection import gaussian_projection
from .pda import pda_attention
from .perturbation import oscillation, tanh_bound
from .softmax import logsumexp, softmax
from .rank import rank_lower_certificate, rank_upper_certificate, row_l1_error, visible_interaction_dim

__version__ = "0.1.0"

__all__ = [
    "attention",
    "attention_blocked",
    "attention_loss_grad",
    "attention_loss_grad_printed",
    "attention_loss_grad_via_attention",
    "attention_matrix",
    "default_backend",
    "default_xp",
    "gaussian_projection",
    "get_array_module",
    "logsumexp",
    "make_rng",
    "pda_attention",
    "oscillation",
    "softmax",
    "SupResult",
    "sup_ratio",
    "tanh_bound",
    "to_numpy",
    "row_l1_error",
    "rank_upper_certificate",
    "rank_lower_certificate",
    "visible_interaction_dim",
]
