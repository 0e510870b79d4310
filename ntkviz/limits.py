"""Names and allowed ranges shared by the models, the command line and the GUI.

A light module: it imports nothing but the standard library, so a parser or a
parameter model can offer choices and check ranges without loading numba,
scipy or Qt. Ranges are inclusive ``(low, high)`` pairs. The numeric core keeps
its own checks; these constants are the ranges the user-facing layers accept.
"""
from __future__ import annotations

# --------------------------------------------------------------- dot-product kernels
KERNEL_NAMES = ("arccos0", "arccos1", "ntk", "nngp")  # κ0, κ1, deep NTK, deep NNGP
ARCCOS_KERNELS = ("arccos0", "arccos1")  # single dual maps: depth, bias and activation do not apply
DEEP_KERNELS = ("ntk", "nngp")  # take depth, bias and activation
ACTIVATIONS = ("relu", "step", "tanh", "erf", "gelu", "softplus", "sigmoid")  # = core.ACTIVATIONS
DEFAULT_ACTIVATION = "relu"  # activation of NTK/NNGP unless chosen
DEPTH_RANGE = (2, 50)  # number of weight layers L of the deep NTK/NNGP
BIAS_RANGE = (0.0, 100.0)  # bias variance β added at every layer (every command and panel)
MAX_CURVES = 8  # kernel curves drawn at once (kernels × depths)

# --------------------------------------------------------------- kernel curves
KERNEL_GRID_RANGE = (2, 1_000_000)  # `ntkviz kernel --grid`: equally spaced cosines on [-1, 1]
CURVE_POINTS_RANGE = (3, 20001)  # points on [-1, 1] of the kernel-curve view
NEAR_ONE_POINTS_RANGE = (2, 20001)  # points of the near-u=1 view
NEAR_ONE_EPS_RANGE = (1e-15, 0.1)  # smallest ε = 1 - u of the near-u=1 view
NET_WIDTH_RANGE = (1, 65536)  # hidden width m of the finite-width overlay networks
NET_SAMPLES_RANGE = (1, 64)  # number of random networks of the overlay
OVERLAY_POINTS_RANGE = (3, 401)  # cosines of the overlay
SEED_RANGE = (0, 2**32 - 1)  # every random seed

# --------------------------------------------------------------- Mercer spectra
DIM_RANGE = (2, 1000)  # input dimension p (sphere S^{p-1})
TARGET_COEFFICIENT_MAX = 1e100  # |c| of a target component k:c (powers c² and sums of squares stay finite)
KMAX_RANGE = (1, 2000)  # highest degree k of a spectrum: the table (from k = 0) and the panel (from k = 1)

# --------------------------------------------------------------- convolutional kernels
ARCH_PRESETS = ("M1", "M2", "M3", "M4")  # = core.cntk.PRESETS
CONV_MODES = ("ckn", "ntk")  # last layer trained (CKN) or all layers (NTK)
POOLINGS = ("gaussian", "average", "strided")  # layer pooling
PATCH_KERNELS = ("relu", "exp")  # layer patch kernel
PATCH_NORMALIZATIONS = ("sum", "mean")
MAX_LAYERS = 8  # layers of an architecture
LAYER_INT_RANGE = (1, 99)  # npatch, subsampling, poolfactor
LAYER_SIGMA_RANGE = (1e-3, 1e3)  # exp patch-kernel σ
IMAGE_SIDE_RANGE = (1, 256)  # pixels per side of a loaded image
MAX_CHANNELS = 16  # channels of a loaded image

# --------------------------------------------------------------- deformations
DIGIT_LABEL_RANGE = (0, 9)
TRANSLATE_RANGE = (-1e3, 1e3)  # px
ROTATION_RANGE = (-360.0, 360.0)  # degrees, counter-clockwise
SCALE_RANGE = (0.05, 20.0)  # zoom about the centre
SHEAR_RANGE = (-10.0, 10.0)  # horizontal shear factor
SMOOTH_AMPLITUDE_RANGE = (0.0, 1e3)  # px
SMOOTH_LENGTH_RANGE = (0.25, 1e3)  # px
INFIMNIST_ALPHA_RANGE = (-1e3, 1e3)
DEFORM_VIEWS = ("original", "deformed", "difference", "displacement", "context")

# --------------------------------------------------------------- stability sweep
FAMILIES = ("smooth", "translation", "rotation", "infimnist")  # deformation families of the sweep
AMPLITUDE_RANGE = (0.0, 1e3)  # exclusive at 0 (log axis); units px, px, degrees, α
AMPLITUDE_COUNT_RANGE = (1, 200)  # amplitudes of a sweep
SWEEP_SEEDS_RANGE = (1, 1000)  # deformations per digit
BUNDLED_PER_CLASS = 100  # bundled MNIST digits per label (1000 in all)
REFERENCES_RANGE = (1, 100)  # reference digits per label for the levels (at most the bundled ones)

# --------------------------------------------------------------- training dynamics
ALPHA_RANGE = (1e-4, 1e6)  # output scale α = τ²
TRAIN_WIDTH_RANGE = (2, 65536)  # student width m (even)
TRAIN_SAMPLES_RANGE = (1, 2000)  # training inputs n
TEACHER_RANGE = (1, 64)  # teacher neurons m0
LR_RANGE = (0.0, 1e3)  # step size, exclusive at 0
STEPS_RANGE = (1, 1_000_000)  # gradient steps
FRAMES_RANGE = (1, 2000)  # recorded frames
TRAIN_DIM_RANGE = (2, 100)  # input dimension d
INITS = ("symmetric", "centered")

# --------------------------------------------------------------- output
CSV_SUFFIXES = (".csv",)
FIGURE_SUFFIXES = (".png", ".svg", ".csv")
EXPORT_WIDTH_RANGE = (16, 20000)  # PNG width in pixels
