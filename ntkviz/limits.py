"""The one table of names and allowed ranges: numeric core, requests, models, command line, GUI.

A light module: it imports nothing but the standard library, so a parser or a
parameter model can offer choices and check ranges without loading numba,
scipy or Qt. Ranges are inclusive ``(low, high)`` pairs, checked with the one
check family :mod:`ntkviz._check` (``check_int("depth", depth, DEPTH_RANGE)``).
Where a library function of the numeric core accepts more than the panels offer,
its wider range is here too (section *numeric core*), named after what it bounds.
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
SPECTRUM_KMAX_RANGE = KMAX_RANGE  # the spectrum panel: k = 0 has no place on a log axis

# --------------------------------------------------------------- convolutional kernels
ARCH_PRESETS = ("M1", "M2", "M3", "M4")  # the keys of ntkviz.core.conv.architecture.PRESETS
CONV_MODES = ("ckn", "ntk")  # last layer trained (CKN) or all layers (NTK)
POOLINGS = ("gaussian", "average", "strided")  # layer pooling
PATCH_KERNELS = ("relu", "exp")  # layer patch kernel
PATCH_NORMALIZATIONS = ("sum", "mean")
#: window of an even patch size s: {-s/2 .. s/2-1} as the reference code, or 'SAME' {-(s/2-1) .. s/2}
EVEN_PATCH_OFFSETS = ("reference", "same")
MAX_LAYERS = 8  # layers of an architecture
LAYER_INT_RANGE = (1, 99)  # npatch, subsampling, poolfactor
LAYER_SIGMA_RANGE = (1e-3, 1e3)  # exp patch-kernel σ
INITIAL_POOLING_SIGMA_RANGE = (0.05, 50.0)  # σ₀ (px) of the optional initial anti-aliasing pooling A₀
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
#: relative feature distances ||Phi(x) - Phi(y)|| / ||Phi(x)|| below these are rounding noise:
#: the squared distance (k_xx + k_yy - 2 k_xy) / k_xx cancels. NTK (sum patch normalisation):
#: kappa_0's infinite slope at 1. CKN: kappa_1 has slope 1 at c = 1, so the kernels are
#: accurate to ~1e-16 relative and the cancellation leaves a floor of d ~ 2e-8 (measured on
#: MNIST digits with M1: d is proportional to a tiny translation down to ~1e-7); at
#: d = 1e-7 the noise is ~1 % of the value
NTK_RESOLUTION = 1e-4
CKN_RESOLUTION = 1e-7
#: relative distances of explicit features (scattering, Fourier modulus, pixels) below this are
#: rounding noise of float64 FFTs (e.g. the Fourier modulus of a circular shift, exactly invariant)
FEATURE_RESOLUTION = 1e-12

# --------------------------------------------------------------- stability sweep
FAMILIES = ("smooth", "translation", "rotation", "infimnist")  # deformation families of the sweep
SWEEP_FAMILIES = FAMILIES + ("dilation", "noise")  # `ntkviz stability --family`: also the dilation tau(u) = s u and additive noise
AMPLITUDE_RANGE = (0.0, 1e3)  # exclusive at 0 (log axis); units px, px, degrees, α
AMPLITUDE_COUNT_RANGE = (1, 200)  # amplitudes of a sweep
DILATION_RANGE = (0.0, 0.95)  # the dilation family's s = ||∇τ||∞ (exclusive at 0)
MAPS = ("ckn", "ntk", "scattering", "fourier", "pixels")  # representations compared under deformations
DEFAULT_MAPS = ("ckn", "ntk", "pixels")
SCATTERING_J_RANGE = (1, 8)  # scattering scale 2^J (and 2^J <= the image side)
SCATTERING_L_RANGE = (1, 16)  # scattering orientations
SCATTERING_IMAGE_MAX = 128  # side (px) of a Scattering-tab image (larger ones are area-averaged to it)
SWEEP_SEEDS_RANGE = (1, 1000)  # deformations per digit
BUNDLED_PER_CLASS = 100  # bundled MNIST digits per label (1000 in all)
REFERENCES_RANGE = (1, BUNDLED_PER_CLASS)  # reference digits per label (stability levels, context)
SLOPE_POINTS_RANGE = (2, 1000)  # smallest amplitudes of a sweep's log-log slope fit
STABILITY_SET_SIZE_RANGE = (1, 500)  # digits per set of the stability view's "sets" (Fig. 1)
STABILITY_SET_KINDS = ("deform", "deform+translate", "same", "any")  # sets of the "sets" view
STABILITY_SWEEPS = ("last-pooling", "patch", "layers", "amplitude")  # x axes of the "sets" view
STABILITY_SET_COUNT_RANGE = (1, 8)  # sets of the "sets" view (one colour each)
STABILITY_REFERENCE_INDEX_RANGE = (0, 10**6)  # which digit of its label the "sets" view's reference is

# --------------------------------------------------------------- Infinite-MNIST generator
INFIMNIST_MAX_INDEX = 2**62 - 1  # digit indexes (the index rule's 2 i stays a signed 64-bit integer)
INFIMNIST_MAX_DIGITS = 1_000_000  # digits per `ntkviz infimnist` file (784 MB of 28x28 images)

# --------------------------------------------------------------- training dynamics
ALPHA_RANGE = (1e-4, 1e6)  # output scale α = τ²
TRAIN_WIDTH_RANGE = (2, 65536)  # student width m (even)
TRAIN_SAMPLES_RANGE = (1, 2000)  # training inputs n
TEACHER_RANGE = (1, 64)  # teacher neurons m0
LR_RANGE = (1e-6, 1e3)  # gradient-descent step size
STEPS_RANGE = (1, 1_000_000)  # gradient steps
FRAMES_RANGE = (1, 2000)  # recorded frames
TRAIN_DIM_RANGE = (2, 100)  # input dimension d
INITS = ("symmetric", "centered")  # paired neurons (f(w0) = 0 exactly) or i.i.d., model centred
TRAIN_LAYERS = ("all", "last", "first")  # trained layers: both, the output layer only (random features), the input layer only
TRAIN_NOISE_RANGE = (0.0, 1e3)  # standard deviation of the label noise of a training run
LAZY_SEEDS_RANGE = (1, 100)  # seeds per point of a lazy-training sweep (`ntkviz lazy-sweep --seeds`)

# --------------------------------------------------------------- generalisation (kernel regression)
LEARN_KMAX_RANGE = (10, 2000)  # degrees of the spectra behind the learning curves
LEARN_N_RANGE = (1, 10_000_000)  # training-set sizes n of the theory (eigenlearning)
PANEL_N_RANGE = (1, 100_000)  # the largest n of the generalisation panel's curve
MC_N_RANGE = (1, 20_000)  # n of a Monte-Carlo run (one Gram solve of size n)
MC_SEEDS_RANGE = (1, 1000)  # Monte-Carlo repetitions
MC_TEST_RANGE = (10, 100_000)  # test points of a Monte-Carlo run
MC_SEED_RANGE = (0, 2**31 - 1)  # first seed of the Monte-Carlo runs
RIDGE_RANGE = (0.0, 1e6)  # ridge δ (not multiplied by n)
DATA_DRAWS_RANGE = (1, 1000)  # random training subsets per n of `ntkviz data-theory`
NOISE_RANGE = (0.0, 1e3)  # label-noise standard deviation σ
GP_COUNT_RANGE = (1, 50)  # GP samples on the circle
GP_POINTS_RANGE = (16, 8192)  # points of a GP sample
PARTIAL_SUM_DEGREE_RANGE = (0, 2000)  # degrees of the Funk–Hecke partial sums
PARTIAL_SUM_POINTS_RANGE = (3, 20001)  # cosines of the partial sums

# --------------------------------------------------------------- numeric core (library calls)
LAYERS_RANGE = (1, DEPTH_RANGE[1])  # deep_kernel, dual_tables: L = 1 (the linear kernel u + β) too
DEEP_BIAS_RANGE = (0.0, 1e6)  # β of deep_kernel and dual_tables
DUAL_VARIANCE_RANGE = (1e-12, 1e6)  # variance q of dual_kernel
EMPIRICAL_SAMPLES_RANGE = (1, 1000)  # networks of one empirical_kernels call
GRID_SIDE_RANGE = (1, 4096)  # pixels per side of a displacement field or a layer-size query

# --------------------------------------------------------------- classification, Gram stores
CLASSIFY_TEST_RANGE = (10, 500)  # test digits of a classification of the bundled digits
CLASSIFY_SIZES_COUNT = 20  # at most this many training sizes, and as many amplitudes
CLASSIFY_SPLITS_RANGE = (1, 100)  # random train/test splits of one classification (`--splits`)
THEORY_POOL_RANGE = (3, 990)  # labelled digits of the Classification tab's spectrum & theory pool
THEORY_SIZES_COUNT = 20  # at most this many training sizes n of the spectrum & theory view
GRAM_TILE_RANGE = (1, 2048)  # tile side (images) of a Gram store
DASK_WORKERS_RANGE = (1, 256)  # workers of the local Dask cluster ntkviz starts

# --------------------------------------------------------------- output
EXPORT_WIDTH_RANGE = (16, 20000)  # image width and height in pixels (PNG, SVG, PDF)
EXPORT_DPI_RANGE = (10, 2400)  # dots per inch: the PNG's resolution tag, the PDF's page size
EXPORT_DPI = 96  # the default: a pixel is 1/96 inch, as in CSS and SVG
EXPORT_SIZE = (800, 500)  # image size of a view that declares none (View.size)
