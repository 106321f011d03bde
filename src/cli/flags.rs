//! Every flag that sets a spec field, declared once with the spec path it sets.
//!
//! The table [`FLAGS`] is the one declaration: the commands are built from it ([`args_for`]),
//! flags override a spec by writing their values at their paths ([`overlay`]), a flag the model
//! does not take is refused by the spec's own validation (its field is unknown to that model),
//! and an error about a field that came from a flag names the flag ([`name_flag`]). Adding a
//! flag is one line here.

use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches};
use pendula::error::Cause;
use pendula::spec::SpecError;
use toml::Value;

/// How a flag's text becomes a spec value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ValueKind {
    /// A number (f64).
    Float,
    /// An angular frequency: a number (rad/s), or a number with its unit (`60Hz`, `377rad/s`),
    /// passed on for the spec to read ([`pendula::model::forcing::angular_frequency`]).
    Frequency,
    /// Comma-separated numbers.
    Floats,
    /// A non-negative integer.
    Int,
    /// Comma-separated non-negative integers.
    Ints,
    /// A word or path.
    Word,
    /// Comma-separated words.
    Words,
    /// One word, or several comma-separated (a list).
    WordOrWords,
    /// An integer, or a word (`--exponents 3|all`).
    IntOrWord,
    /// `W` or `WxH` pixels: an integer or `[W, H]`.
    Resolution,
    /// Comma-separated index pairs `I:J` (1-based): `[[I, J], …]`.
    Pairs,
    /// One number (for every link) or several, comma-separated (one per link).
    FloatOrFloats,
    /// `PARAM=V1,V2,…` or `PARAM=FROM:TO:COUNT`, repeatable: one `[[sweep.axis]]` each.
    Sweeps,
    /// A switch that sets the field to this value when given.
    Switch(bool),
    /// `--flag` (true) or `--flag=BOOL`.
    Bool,
}

/// One flag: `--long`, the spec path it sets (`@` stands for the command's own table, so
/// `@.t_end` is `simulate.t_end` under `simulate` and `map.t_end` under `map`), how its value
/// is read, its help, and the commands that take it.
pub struct Flag {
    pub long: &'static str,
    pub path: &'static str,
    pub kind: ValueKind,
    pub value_name: &'static str,
    pub help: &'static str,
    pub commands: &'static [&'static str],
}

const SIM: &str = "simulate";
const MODES: &str = "modes";
const LYAP: &str = "lyapunov";
const POIN: &str = "poincare";
const MAP: &str = "map";
const ANIM: &str = "animate";
const CTRL: &str = "control";
const ORB: &str = "orbits";
const FREQ: &str = "frequencies";
const MANI: &str = "manifolds";

/// The commands that take a model.
const MODELLED: &[&str] = &[SIM, MODES, LYAP, POIN, MAP, ANIM, CTRL, ORB, FREQ, MANI];
/// The commands a `[sweep]` runs (`measure` sweeps through its spec).
const SWEPT: &[&str] = &[SIM, MODES, LYAP, POIN, MAP, FREQ];
/// The commands that start from an initial state given by flags.
const STARTED: &[&str] = &[SIM, LYAP, POIN, ANIM, ORB, FREQ, MANI];

macro_rules! flags {
    ($($long:literal => $path:literal, $kind:expr, $vn:expr, $help:literal, $on:expr;)*) => {
        /// The spec flags, in the order `--help` lists them.
        pub const FLAGS: &[Flag] = &[$(Flag {
            long: $long,
            path: $path,
            kind: $kind,
            value_name: $vn,
            help: $help,
            commands: $on,
        }),*];
    };
}

use ValueKind::*;

flags! {
    // The model.
    "preset" => "model.preset", Word, "simple|double|triple|chain|rods|taylor|baker-gollub|kapitza", "Model preset (default double); taylor, baker-gollub and kapitza take the textbook's parameters (--taylor-gamma, …; docs/textbooks.md)", MODELLED;
    "links" => "model.links", Int, "N", "Number of links (chain and rods presets; the cart chain)", MODELLED;
    "length" => "model.length", Float, "M", "Link length (m) of a preset", MODELLED;
    "mass" => "model.mass", Float, "KG", "Link mass (kg) of a preset", MODELLED;
    "gravity" => "model.gravity", Float, "G", "Gravity (m/s²)", MODELLED;
    // The textbook presets' own parameters (docs/textbooks.md): the spec's [model.taylor], …
    "taylor-gamma" => "model.taylor.gamma", Float, "Γ", "Taylor's drive strength γ (dimensionless), with --preset taylor", MODELLED;
    "taylor-beta" => "model.taylor.beta", Float, "1/S", "Taylor's damping constant β (1/s), default ω₀/4 = 3π/4", MODELLED;
    "taylor-omega0" => "model.taylor.omega0", Frequency, "RAD/S|NHz", "Taylor's natural frequency ω₀ (rad/s, or 1.5Hz), default 3π", MODELLED;
    "taylor-omega" => "model.taylor.omega", Frequency, "RAD/S|NHz", "Taylor's drive frequency ω (rad/s, or 1Hz), default 2π", MODELLED;
    "baker-gollub-g" => "model.baker-gollub.g", Float, "G", "Baker and Gollub's drive amplitude g (dimensionless), with --preset baker-gollub", MODELLED;
    "baker-gollub-q" => "model.baker-gollub.q", Float, "Q", "Baker and Gollub's quality factor q, default 2", MODELLED;
    "baker-gollub-omega-d" => "model.baker-gollub.omega_d", Frequency, "ΩD", "Baker and Gollub's drive frequency ω_D (dimensionless), default 2/3", MODELLED;
    "kapitza-a" => "model.kapitza.a", Float, "M", "Kapitza's pivot amplitude a (m), with --preset kapitza", MODELLED;
    "kapitza-omega" => "model.kapitza.omega", Frequency, "RAD/S|NHz", "Kapitza's pivot frequency Ω (rad/s, or 60Hz)", MODELLED;
    "kapitza-l" => "model.kapitza.l", Float, "M", "Kapitza's rod length l (m), default 1", MODELLED;
    "kapitza-g" => "model.kapitza.g", Float, "G", "Kapitza's gravity g (m/s²), default 9.81", MODELLED;
    // Damping and drive (docs/physics.md): the spec's [model.damping] and [model.drive].
    "damping" => "model.damping.absolute", FloatOrFloats, "γ|γ1,γ2,…", "Absolute viscous damping (N·m·s), torque −γⱼ θ̇ⱼ on link j: one value for every link, or one per link", MODELLED;
    "joint-damping" => "model.damping.joint", FloatOrFloats, "c|c1,c2,…", "Joint damping (N·m·s) at each link's upper joint, torque −cⱼ (θ̇ⱼ − θ̇ⱼ₋₁): one value for every link, or one per link", MODELLED;
    "torque-amplitude" => "model.drive.torque.amplitude", Float, "N·M", "Periodic torque A cos(Ω t + φ) on link 1 at the pivot: its amplitude A (N·m)", MODELLED;
    "torque-frequency" => "model.drive.torque.frequency", Frequency, "RAD/S|NHz", "The torque's angular frequency Ω (rad/s), or its frequency with the unit (60Hz: Ω = 2π·60 rad/s)", MODELLED;
    "torque-phase" => "model.drive.torque.phase", Float, "RAD", "The torque's phase φ (rad), default 0", MODELLED;
    "pivot-x" => "model.drive.pivot.x_amplitude", Float, "M", "Pivot moved (x, y)·cos(Ω t + φ): its horizontal amplitude x (m)", MODELLED;
    "pivot-y" => "model.drive.pivot.y_amplitude", Float, "M", "The pivot's vertical amplitude y (m)", MODELLED;
    "pivot-frequency" => "model.drive.pivot.frequency", Frequency, "RAD/S|NHz", "The pivot's angular frequency Ω (rad/s), or its frequency with the unit (60Hz: Ω = 2π·60 rad/s)", MODELLED;
    "pivot-phase" => "model.drive.pivot.phase", Float, "RAD", "The pivot's phase φ (rad), default 0", MODELLED;
    // The figure's words (every figure-drawing command; README "Conventions every command shares").
    "title" => "title", Word, "TEXT", "The figure's title and the file's (default: the kind, the model and what the run varies, e.g. \"γ from 1.06 to 1.09\")", MODELLED;
    "xlabel" => "output.xlabel", Word, "TEXT", "The figure's x-axis label in place of its own", MODELLED;
    "ylabel" => "output.ylabel", Word, "TEXT", "The figure's y-axis label in place of its own (every panel's)", MODELLED;
    // The initial state.
    "theta" => "initial.theta", Floats, "θ1,θ2,…", "Initial angles (rad) from the downward vertical", STARTED;
    "theta-deg" => "initial.theta_deg", Floats, "θ1,θ2,…", "Initial angles in degrees (instead of --theta)", &[SIM, LYAP, ANIM, ORB, FREQ];
    "omega" => "initial.omega", Floats, "ω1,ω2,…", "Initial angular velocities (rad/s), default 0", STARTED;
    "tilt" => "initial.tilt", Float, "RAD", "Start tilted from the equilibrium by this angle (rad) per link (default 0.05)", &[CTRL];
    // The integrator.
    "method" => "integrator.method", Word, "rk4|dop853|gauss", "Integrator", &[SIM, LYAP, ANIM, FREQ];
    "dt" => "integrator.dt", Float, "S", "Fixed step of rk4 and gauss (s)", &[SIM, LYAP, MAP, FREQ];
    "substeps" => "integrator.substeps", Int, "S", "Steps per output sample for rk4 and gauss (instead of --dt)", &[SIM];
    "rtol" => "integrator.rtol", Float, "TOL", "Relative tolerance of dop853", &[SIM, LYAP, POIN, ANIM, CTRL, ORB, FREQ];
    "atol" => "integrator.atol", Float, "TOL", "Absolute tolerance of dop853", &[SIM, LYAP, POIN, ANIM, CTRL, ORB, FREQ];
    "h-max" => "integrator.h_max", Float, "S", "Largest step of dop853 (s)", &[SIM, LYAP, POIN, FREQ];
    // The end of a run and its sampling.
    "t-end" => "@.t_end", Float, "S", "End of the run (s); for lyapunov the transient plus the averaging time", &[SIM, LYAP, POIN, MAP, CTRL, FREQ];
    // Sweeps: the same run at every value of one or more spec fields.
    "sweep" => "sweep.axis", Sweeps, "FIELD=V1,V2,…|FIELD=FROM:TO:COUNT", "Run once per value of a spec field (e.g. model.drive.torque.amplitude=0.9:1.5:100); repeat for several fields", SWEPT;
    "sweep-combine" => "sweep.combine", Word, "product|zip", "How several --sweep fields make points: every combination (product, default) or side by side (zip)", SWEPT;
    "sweep-dir" => "sweep.directory", Word, "DIR", "Folder of the sweep points' own result files (default: beside -o, named <stem>-points)", SWEPT;
    "dt-out" => "@.dt_out", Float, "S", "Sampling interval (s), default 0.01", &[SIM, CTRL, FREQ];
    // modes
    "equilibria" => "modes.equilibria", WordOrWords, "hanging|all|+-…", "Equilibria: hanging (default), all, or sign strings like +-+ (comma-separated)", &[MODES];
    "check" => "modes.check", Bool, "BOOL", "Compare with the small-angle closed forms (on by default; --check=false to skip)", &[MODES];
    "verify-nonlinear" => "modes.verify_nonlinear", Switch(true), "", "Start the nonlinear model in each mode and measure its frequency", &[MODES];
    "amplitude" => "@.amplitude", Float, "RAD", "Release amplitude (rad): of --verify-nonlinear (modes, default 1e-3); of the --start mode seed, the largest link's (orbits, default 0.05)", &[MODES, ORB];
    "periods" => "modes.periods", Float, "N", "Linear periods integrated per measurement (default 20)", &[MODES];
    "amplitudes" => "modes.amplitudes", Floats, "RAD,…", "Amplitudes (rad) for the lowest mode's amplitude dependence", &[MODES];
    // lyapunov
    "estimator" => "lyapunov.estimator", Word, pendula::spec::ESTIMATORS, "Estimator (default spectrum)", &[LYAP];
    "exponents" => "lyapunov.exponents", IntOrWord, "k|all", "Number of exponents k, or all (default)", &[LYAP];
    "tau" => "@.tau", Float, "S", "Re-orthonormalization interval τ (s); lyapunov default 0.01, maps 0.1", &[LYAP, MAP];
    "transient" => "@.transient", Float, "S|N", "Transient discarded: lyapunov, seconds whose logs are dropped (default 10); poincare --stroboscopic, whole drive periods before the first sample (default 0)", &[LYAP, POIN];
    "blocks" => "@.blocks", Int, "B", "Blocks of the batch-means standard errors (lyapunov: >= 10, default 20; map: >= 2, default 10 or the renormalisation intervals of t_end if fewer)", &[LYAP, MAP];
    "tolerance" => "@.tolerance", Float, "1/S", "Stop once every standard error (map: each pixel's) is below this (1/s)", &[LYAP, MAP];
    "d0" => "lyapunov.d0", Float, "D", "Initial separation of the two-trajectory method", &[LYAP];
    "deviation" => "lyapunov.deviation", Word, "unit|diagonal", "Start deviation vector of tangent, megno and fli: diagonal ((1,…,1)/√(2N), the default, the maps' start) or unit (e1)", &[LYAP];
    "slope-samples" => "lyapunov.slope_samples", Word, "step|tau", "MEGNO: fit the slope of ⟨Y⟩ over the second half at the multiples of τ and t_end (default, the megno map's rule) or at every step", &[LYAP];
    "vectors" => "lyapunov.vectors", Word, "covariant", "Also the covariant Lyapunov vectors of the spectrum's run (Ginelli's method), sampled over its averaging window", &[LYAP];
    "backward-transient" => "lyapunov.backward_transient", Float, "S", "Covariant vectors: the backward transient (s) run after the window, default 10", &[LYAP];
    "vector-samples" => "lyapunov.vector_samples", Int, "N", "Covariant vectors: most sample times over the window, default 1000", &[LYAP];
    "vector-pairs" => "lyapunov.vector_pairs", Pairs, "I:J,…", "Covariant vectors: pairs whose angle is reported at every sample, e.g. 1:4,2:3", &[LYAP];
    "tangency-angle" => "lyapunov.tangency_angle", Float, "RAD", "Covariant vectors: an unstable-stable angle below this is a near-tangency (default 0.1 rad)", &[LYAP];
    "ensemble" => "lyapunov.ensemble", Int, "N", "Run an ensemble of N perturbed initial conditions", &[LYAP];
    "epsilon" => "lyapunov.epsilon", Float, "E", "Size of the ensemble's perturbations (default 1e-10)", &[LYAP];
    "seed" => "@.seed", Int, "N", "Seed of the random perturbations or initial points", &[LYAP, POIN];
    // poincare
    "section" => "poincare.section", Word, "thetaI|omegaI", "Section coordinate (default theta1)", &[POIN];
    "value" => "poincare.value", Float, "X", "Section position (rad or rad/s, default 0)", &[POIN];
    "normal" => "poincare.normal", Floats, "a1,a2,…", "A general hyperplane a·x = offset on (θ, θ̇) instead of --section", &[POIN];
    "offset" => "poincare.offset", Float, "B", "Offset of the --normal hyperplane", &[POIN];
    "direction" => "poincare.direction", Word, "+|-|both", "Crossing direction (default +)", &[POIN];
    "stroboscopic" => "poincare.stroboscopic", Switch(true), "", "Stroboscopic section t = t0 + k·period (driven chains)", &[POIN];
    "period" => "poincare.period", Float, "S", "Stroboscopic period (s), default 2π/Ω of the drive", &[POIN];
    "t0" => "poincare.t0", Float, "S", "Stroboscopic phase: the first sample time (s), default 0", &[POIN];
    "energy" => "poincare.energy", Floats, "E1,E2,…", "Shell energies (J): one panel each", &[POIN];
    "energy-fraction" => "poincare.energy_fraction", Floats, "F1,F2,…", "Energies as fractions between hanging (0) and inverted (1)", &[POIN];
    "link" => "poincare.link", Int, "J", "Link (1-based) whose plane is sampled and plotted", &[POIN];
    "variables" => "poincare.variables", Word, "momentum|velocity", "Plot p = M θ̇ (default) or θ̇", &[POIN];
    "grid" => "poincare.grid", Ints, "NA,NS", "Grid of initial points: angles,speeds (default 8,5)", &[POIN];
    "random" => "poincare.random", Int, "N", "N random initial points instead of a grid", &[POIN];
    "angle-range" => "poincare.angle_range", Floats, "LO,HI", "θ range of the initial points (rad; default the part of -π,π the energy reaches)", &[POIN];
    "speed-range" => "poincare.speed_range", Floats, "LO,HI", "p or θ̇ range of the initial points (default: the shell's extent)", &[POIN];
    "crossings" => "poincare.crossings", Int, "N", "Crossings per orbit (default 300)", &[POIN];
    "lyapunov" => "poincare.lyapunov", Switch(true), "", "Finite-time Lyapunov exponent per orbit (colours regular/chaotic)", &[POIN];
    "chaos-threshold" => "poincare.chaos_threshold", Float, "1/S", "Exponent above which an orbit counts as chaotic (default 0.05)", &[POIN];
    // map
    "kind" => "map.kind", Word, pendula::spec::MAP_KINDS, "What each pixel shows (default flip-time)", &[MAP];
    "resolution" => "map.resolution", Resolution, "W[xH]", "Pixels: W (square) or WxH (default 256)", &[MAP];
    "window" => "map.window", Floats, "XLO,XHI,YLO,YHI", "Zoom window (default −π,π,−π,π for angles)", &[MAP];
    "x" => "map.x", Word, "theta1|…|omegaN", "Horizontal coordinate (default theta1)", &[MAP];
    "y" => "map.y", Word, "theta1|…|omegaN", "Vertical coordinate (default theta2)", &[MAP];
    "flip" => "map.flip", Word, "any|N", "Which link's flip counts (default any)", &[MAP];
    "no-energy-skip" => "map.energy_skip", Switch(false), "", "Integrate energetically forbidden pixels too (the same map, slower)", &[MAP];
    "tile" => "map.tile", Int, "N", "Tile edge in pixels (default 32 up to 256 pixels a side, else 64)", &[MAP];
    "kernel" => "map.kernel", Word, "auto|lanes|scalar", "auto (SIMD lanes where they apply), lanes (also for fli and lagrangian-descriptor) or scalar", &[MAP];
    "gali-order" => "map.gali_order", Int, "K", "GALI maps: number of deviation vectors (2..2N, default 2N)", &[MAP];
    "angle-tol" => "map.angle_tol", Float, "RAD", "Final-state maps: settling tolerance on angles (default 0.01)", &[MAP];
    "omega-tol" => "map.omega_tol", Float, "RAD/S", "Final-state maps: settling tolerance on rates (default 0.01)", &[MAP];
    "dwell" => "map.dwell", Float, "S", "Final-state maps of undriven chains: time to stay settled (default 1)", &[MAP];
    "max-period" => "map.max_period", Int, "K", "Final-state maps of driven chains: largest period searched (default 8)", &[MAP];
    "repeats" => "map.repeats", Int, "N", "Final-state maps of driven chains: repeats of a period-k orbit (default 3)", &[MAP];
    "descriptor-p" => "map.descriptor_p", Float, "P", "Lagrangian-descriptor maps: exponent p of Σ|ẋᵢ|^p, in (0, 1] (default 0.5)", &[MAP];
    "energy" => "map.energy", Float, "E", "Energy-shell grid: every pixel has this energy (J)", &[MAP];
    "solve" => "map.solve", Word, "omegaJ", "Energy-shell grid: the velocity solved from E (default the last free one)", &[MAP];
    // animate
    "gif" => "animate.gif", Word, "FILE.gif", "Write the animated GIF here", &[ANIM];
    "frames" => "animate.frames", Word, "DIR", "Write the frames as PNG files into this folder", &[ANIM];
    "fps" => "animate.fps", Float, "N", "Frames per second (default 25, at most 50)", &[ANIM];
    "duration" => "animate.duration", Float, "S", "Length of the animation in seconds of video (default 10)", &[ANIM];
    "speed" => "animate.speed", Float, "A", "Model seconds per second of animation (default 1)", &[ANIM];
    "substeps" => "animate.substeps", Int, "S", "RK4 sub-steps per frame, δt = speed / (fps · S) (default 10)", &[ANIM];
    "trace" => "animate.trace", Ints, "J,…", "Link ends that leave a fading trace (default the tip)", &[ANIM];
    "trace-time" => "animate.trace_time", Float, "S", "Model time over which a trace fades out (default 2)", &[ANIM];
    "width" => "animate.width", Int, "PX", "Image width in pixels (default 600)", &[ANIM];
    "height" => "animate.height", Int, "PX", "Image height in pixels (default 600)", &[ANIM];
    "background" => "animate.background", Word, "#RRGGBB", "Background colour", &[ANIM];
    "chain-colour" => "animate.chain_colour", Word, "#RRGGBB", "Colour of the links", &[ANIM];
    "bob-colour" => "animate.bob_colour", Word, "#RRGGBB", "Colour of the bobs", &[ANIM];
    "trace-colours" => "animate.trace_colours", Words, "#RRGGBB,…", "Trace colours", &[ANIM];
    // Still figures of the visual lab.
    "spirograph" => "figures.spirograph", Word, "FILE.png|svg", "Draw the long-time trace of a link end", &[SIM, ANIM];
    "spirograph-link" => "figures.spirograph_link", Int, "J", "The link whose lower end the spirograph traces (default the tip)", &[SIM, ANIM];
    "spirograph-colour" => "figures.spirograph_colour", Word, "time|speed", "Colour the spirograph by time (default) or speed", &[SIM, ANIM];
    "phase" => "figures.phase", Word, "FILE.png|svg", "Draw phase portraits θ_j–θ̇_j", &[SIM, ANIM];
    "phase-links" => "figures.phase_links", Ints, "J,…", "Links of the phase portraits (default all, up to 6)", &[SIM, ANIM];
    "energy-plot" => "figures.energy_plot", Word, "FILE.png|svg", "Draw the energy budget (kinetic per link, potential, work)", &[SIM, ANIM];
    // orbits
    "start" => "orbits.start", Word, "initial|mode|settle|return|map", "Seed of the search: the initial state (default), a normal mode (--mode, --amplitude), the initial state after --transient-periods drive periods, the nearest k-period return among --scan-periods after them, or an attractor of a final-state map (--map-file, --attractor)", &[ORB];
    "map-file" => "orbits.map_file", Word, "FILE.h5", "--start map: the final-state map whose attractor seeds the search", &[ORB];
    "attractor" => "orbits.attractor", Word, "period_K", "--start map: the attractor's class in the map (default period_K, K = --drive-periods)", &[ORB];
    "scan-periods" => "orbits.scan_periods", Int, "N", "--start return: drive periods scanned for the nearest return (default 1000)", &[ORB];
    "mode" => "orbits.mode", Int, "K", "Normal mode of the --start mode seed (1 = lowest, default 1)", &[ORB];
    "drive-periods" => "orbits.drive_periods", Int, "K", "A driven orbit's period in drive periods (default 1)", &[ORB];
    "energy" => "orbits.energy", Float, "E", "An undriven orbit's energy (J; default the seed's)", &[ORB];
    "period" => "orbits.period", Float, "S", "An undriven orbit's period (s): the guess, or the fixed period without --energy", &[ORB];
    "transient-periods" => "orbits.transient_periods", Int, "N", "Drive periods integrated before the search (--start settle, return or map) or before each diagram value's samples (default 200)", &[ORB];
    "segments" => "orbits.segments", Int, "M", "Shooting segments (default 1; unstable orbits of chaotic chains need more)", &[ORB];
    "newton-tolerance" => "orbits.newton_tolerance", Float, "TOL", "Newton stops when every residual is at most this (default 1e-10)", &[ORB];
    "max-iterations" => "orbits.max_iterations", Int, "N", "Newton iterations at most (default 40)", &[ORB];
    "shape-samples" => "orbits.shape_samples", Int, "N", "States kept per segment along the orbit (default 64)", &[ORB];
    "parameter" => "orbits.parameter", Word, "FIELD", "The spec field continued or swept (model.drive.torque.amplitude, orbits.energy, a textbook preset's model.taylor.gamma, …)", &[ORB];
    "range" => "orbits.range", Floats, "A,B", "continue: the parameter's bounds; diagram: the swept values' ends", &[ORB];
    "points" => "orbits.points", Int, "N", "continue: most branch points; diagram: parameter values (default 200)", &[ORB];
    "direction" => "orbits.direction", Word, "up|down|both", "continue: from the spec's value up (default), down, or both ways (two branches)", &[ORB];
    "step" => "orbits.step", Float, "DS", "continue: first arclength step (default 0.01)", &[ORB];
    "min-step" => "orbits.min_step", Float, "DS", "continue: smallest arclength step (default 1e-8)", &[ORB];
    "max-step" => "orbits.max_step", Float, "DS", "continue: largest arclength step (default 0.1)", &[ORB];
    "locate-tolerance" => "orbits.locate_tolerance", Float, "DP", "continue: a bifurcation is located to within this in the parameter (default 1e-9)", &[ORB];
    "doublings" => "orbits.doublings", Int, "N", "continue: period-doubling branches followed after the first (default 0)", &[ORB];
    "follow" => "orbits.follow", WordOrWords, "KIND,…", "continue: follow the new branches born at the located bifurcations of these kinds: period-doubling, branch-point, neimark-sacker (a note: the torus is `pendula frequencies`'s), or all", &[ORB];
    "parameter2" => "orbits.parameter2", Word, "FIELD", "curve: the second spec field (any --parameter accepts but orbits.energy and --parameter itself)", &[ORB];
    "range2" => "orbits.range2", Floats, "MIN,MAX", "curve: the second parameter's bounds", &[ORB];
    "bifurcation" => "orbits.bifurcation", Word, "all|fold|branch-point|period-doubling|neimark-sacker|KIND:N", "curve: which located bifurcations of the branch to continue (default all; KIND:N the N-th of that kind along it)", &[ORB];
    "branch-file" => "orbits.branch_file", Word, "FILE.h5", "curve: take the located bifurcations from this orbits continue file instead of continuing the branch", &[ORB];
    "chart-grid" => "orbits.chart_grid", Int, "N", "curve: the stability chart's shading nodes per axis (default 40, 0: none)", &[ORB];
    "sampled-periods" => "orbits.sampled_periods", Int, "N", "diagram: drive periods sampled at each value (default 100)", &[ORB];
    "steps-per-period" => "orbits.steps_per_period", Int, "N", "diagram: RK4 steps per drive period (default 200)", &[ORB];
    // manifolds
    "start" => "manifolds.start", Word, "initial|settle|return", "Seed of the saddle's search, as orbits: the initial state (default), it after --transient-periods drive periods, or the nearest k-period return among --scan-periods after them", &[MANI];
    "drive-periods" => "manifolds.drive_periods", Int, "K", "The saddle's period in drive periods (default 1)", &[MANI];
    "transient-periods" => "manifolds.transient_periods", Int, "N", "Drive periods integrated before the search (--start settle or return, default 200)", &[MANI];
    "scan-periods" => "manifolds.scan_periods", Int, "N", "--start return: drive periods scanned for the nearest return (default 1000)", &[MANI];
    "newton-tolerance" => "manifolds.newton_tolerance", Float, "TOL", "Newton on the saddle stops at this residual (default 1e-12)", &[MANI];
    "map-tolerance" => "manifolds.map_tolerance", Float, "TOL", "DOP853 tolerance of the stroboscopic map and its inverse (default 1e-13)", &[MANI];
    "steps-per-period" => "manifolds.steps_per_period", Int, "N", "Instead of --map-tolerance: DOP853 on a fixed grid of N steps per drive period (a smooth map)", &[MANI];
    "d0" => "manifolds.d0", Float, "D", "First point's distance from the saddle along the eigenvector (default 1e-6)", &[MANI];
    "resolution" => "manifolds.resolution", Float, "D", "Largest distance between neighbouring points of a branch (default 0.01)", &[MANI];
    "max-angle" => "manifolds.max_angle", Float, "RAD", "Largest turn of a branch at a point (default 0.2)", &[MANI];
    "accuracy" => "manifolds.accuracy", Float, "D", "Largest estimated departure of the chord between neighbours from the manifold; later generations' points are then inserted from the previous generation (default: not controlled, every point from the domain)", &[MANI];
    "arclength" => "manifolds.arclength", Float, "L", "Arclength of each branch from the saddle (default 10)", &[MANI];
    "max-points" => "manifolds.max_points", Int, "N", "Most points of a branch (default 2000000)", &[MANI];
    "linear-tolerance" => "manifolds.linear_tolerance", Float, "TOL", "Largest departure of the first segment from the eigenline's image (default 1e-9)", &[MANI];
    "intersection-tolerance" => "manifolds.intersection_tolerance", Float, "TOL", "Intersections are refined until both branches agree to this (default 1e-11)", &[MANI];
    "window" => "manifolds.window", Floats, "A,B", "θ − θ* window of the splitting (default 0.6,2π−0.6)", &[MANI];
    "parameter" => "manifolds.parameter", Word, "FIELD", "Model field of the first-tangency search (model.drive.torque.amplitude, model.damping.absolute, …)", &[MANI];
    "range" => "manifolds.range", Floats, "A,B", "Bracket of the first tangency in --parameter", &[MANI];
    "map-file" => "manifolds.map_file", Word, "FILE.h5", "A map of (θ, θ̇) at release of this model (pendula map): the figure draws the manifolds over it", &[MANI];
    "tangency-tolerance" => "manifolds.tangency_tolerance", Float, "DP", "The first tangency to within this in the parameter (default 1e-8)", &[MANI];
    "section" => "manifolds.section", Word, "theta1|theta2", "Two conservative links: the Poincaré section's angle (default theta1); the plane is the other link's (θ, p)", &[MANI];
    "value" => "manifolds.value", Float, "RAD", "Two conservative links: the section's angle value (rad, default 0)", &[MANI];
    "direction" => "manifolds.direction", Word, "+|-", "Two conservative links: the section's crossing direction (default +)", &[MANI];
    "energy" => "manifolds.energy", Float, "E", "Two conservative links: the energy shell (J; default the seed's)", &[MANI];
    "period" => "manifolds.period", Float, "S", "Two conservative links, --start initial: the hyperbolic orbit's period guess (s)", &[MANI];
    // frequencies
    "window-order" => "@.window_order", Int, "P", "Order p of the Hann window, 0..=12 (frequencies: default 1; frequency maps: default 2): frequency errors fall like T^-(2p+2)", &[FREQ, MAP];
    "samples" => "map.samples", Int, "N", "Frequency maps: samples per pixel, even, spread over t_end (default 2048)", &[MAP];
    "terms" => "frequencies.terms", Int, "N", "Lines extracted per link (default 10)", &[FREQ];
    "combination-order" => "frequencies.combination_order", Int, "K", "Largest Σ|k_i| of the integer combinations of the fundamentals that explain the lines (default 15, lower beyond four links)", &[FREQ];
    "omega-ref" => "frequencies.omega_ref", Float, "RAD/S", "ω_ref of the signal θ − iθ̇/ω_ref (default the lowest small-oscillation frequency)", &[FREQ];
    // control
    "equilibrium" => "control.equilibrium", Word, "inverted|hanging|folded|+-…", "Equilibrium to stabilize (default inverted)", &[CTRL];
    "q-cart" => "control.q_cart", Float, "W", "LQR weight on the cart position", &[CTRL];
    "q-angle" => "control.q_angle", Float, "W", "LQR weight on the link tilts", &[CTRL];
    "q-rate" => "control.q_rate", Float, "W", "LQR weight on all rates", &[CTRL];
    "r" => "control.r", Float, "W", "LQR weight on the force", &[CTRL];
}

/// The spec path a flag sets under `command` (`@` → the command's table).
pub fn path_of(flag: &Flag, command: &str) -> String {
    flag.path.replacen('@', command, 1)
}

/// The clap arguments of `command`, built from [`FLAGS`].
pub fn args_for(command: &'static str) -> Vec<Arg> {
    FLAGS
        .iter()
        .filter(|f| f.commands.contains(&command))
        .map(|f| {
            let mut a = Arg::new(f.long).long(f.long).help(f.help);
            if !f.value_name.is_empty() {
                a = a.value_name(f.value_name);
            }
            match f.kind {
                Switch(_) => a.action(ArgAction::SetTrue),
                Bool => a
                    .num_args(0..=1)
                    .default_missing_value("true")
                    .value_parser(clap::value_parser!(bool)),
                Sweeps => a
                    .allow_hyphen_values(true)
                    .action(ArgAction::Append)
                    .value_parser(element_parser(f.kind)),
                Floats | Ints | Words | WordOrWords | Pairs | FloatOrFloats => a
                    .value_delimiter(',')
                    .allow_hyphen_values(true)
                    .action(ArgAction::Set)
                    .value_parser(element_parser(f.kind)),
                _ => a
                    .allow_hyphen_values(true)
                    .value_parser(element_parser(f.kind)),
            }
        })
        .collect()
}

/// Parses one comma-separated element (or the whole value) into a TOML value.
fn element_parser(kind: ValueKind) -> impl Fn(&str) -> Result<Value, String> + Clone + Send + Sync {
    move |s: &str| -> Result<Value, String> {
        let s = s.trim();
        let float = || {
            s.parse::<f64>()
                .map(Value::Float)
                .map_err(|_| format!("expected a number (got `{s}`)"))
        };
        let int = || match s.parse::<u64>() {
            Ok(v) => i64::try_from(v)
                .map(Value::Integer)
                .map_err(|_| format!("too large (at most {}; got `{s}`)", i64::MAX)),
            Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => {
                Err(format!("too large (at most {}; got `{s}`)", i64::MAX))
            }
            Err(_) => Err(format!("expected a whole number >= 0 (got `{s}`)")),
        };
        match kind {
            Float | Floats | FloatOrFloats => float(),
            Int | Ints => int(),
            IntOrWord => Ok(int().unwrap_or_else(|_| Value::String(s.to_string()))),
            Frequency => Ok(float().unwrap_or_else(|_| Value::String(s.to_string()))),
            Resolution => {
                let bad = || format!("expected W or WxH in pixels (got `{s}`)");
                let px = |t: &str| t.parse::<u64>().ok().and_then(|v| i64::try_from(v).ok());
                match s.split_once(['x', 'X']) {
                    Some((w, h)) => match (px(w), px(h)) {
                        (Some(w), Some(h)) => {
                            Ok(Value::Array(vec![Value::Integer(w), Value::Integer(h)]))
                        }
                        _ => Err(bad()),
                    },
                    None => px(s).map(Value::Integer).ok_or_else(bad),
                }
            }
            Pairs => {
                let bad = || format!("expected pairs of vector indices such as 1:4 (got `{s}`)");
                let ix = |t: &str| t.trim().parse::<u32>().ok().map(i64::from);
                match s.split_once(':') {
                    Some((a, b)) => match (ix(a), ix(b)) {
                        (Some(a), Some(b)) => {
                            Ok(Value::Array(vec![Value::Integer(a), Value::Integer(b)]))
                        }
                        _ => Err(bad()),
                    },
                    None => Err(bad()),
                }
            }
            Sweeps => sweep_axis(s),
            Word | Words | WordOrWords | Switch(_) | Bool => Ok(Value::String(s.to_string())),
        }
    }
}

/// One `--sweep` value as a `[[sweep.axis]]` table: `FIELD=V1,V2,…` (its values) or
/// `FIELD=FROM:TO:COUNT` (a range with a count).
fn sweep_axis(s: &str) -> Result<Value, String> {
    let (field, list) = s
        .split_once('=')
        .ok_or_else(|| format!("expected FIELD=V1,V2,… or FIELD=FROM:TO:COUNT (got `{s}`)"))?;
    let num = |t: &str| {
        t.trim()
            .parse::<f64>()
            .map_err(|_| format!("expected a number (got `{}` in `{s}`)", t.trim()))
    };
    let mut axis = toml::Table::new();
    axis.insert("parameter".into(), Value::String(field.trim().to_string()));
    let parts: Vec<&str> = list.split(':').collect();
    match parts.as_slice() {
        [from, to, count] => {
            // Any number goes on to the spec's one rule for a count (a whole number from 2),
            // which a spec's `count` and Python's `(from, to, count)` meet too.
            let count = match count.trim().parse::<i64>() {
                Ok(n) => Value::Integer(n),
                Err(_) => Value::Float(count.trim().parse::<f64>().map_err(|_| {
                    format!(
                        "expected a whole number of values after the second ':' (got `{}` in `{s}`)",
                        count.trim()
                    )
                })?),
            };
            axis.insert(
                "range".into(),
                Value::Array(vec![Value::Float(num(from)?), Value::Float(num(to)?)]),
            );
            axis.insert("count".into(), count);
        }
        [values] => {
            let v = values
                .split(',')
                .map(|t| num(t).map(Value::Float))
                .collect::<Result<Vec<_>, _>>()?;
            axis.insert("values".into(), Value::Array(v));
        }
        _ => {
            return Err(format!(
                "expected FIELD=V1,V2,… or FIELD=FROM:TO:COUNT (got `{s}`)"
            ))
        }
    }
    Ok(Value::Table(axis))
}

/// The flags the command line gave (not defaults).
pub fn given<'a>(m: &'a ArgMatches, command: &'a str) -> impl Iterator<Item = &'static Flag> + 'a {
    FLAGS.iter().filter(move |f| {
        f.commands.contains(&command) && m.value_source(f.long) == Some(ValueSource::CommandLine)
    })
}

/// A given flag's value as TOML.
fn value(m: &ArgMatches, f: &Flag) -> Value {
    match f.kind {
        Switch(v) => Value::Boolean(v),
        Bool => Value::Boolean(m.get_one::<bool>(f.long).copied().unwrap_or(true)),
        Floats | Ints | Words | Pairs | Sweeps => Value::Array(
            m.get_many::<Value>(f.long)
                .into_iter()
                .flatten()
                .cloned()
                .collect(),
        ),
        WordOrWords | FloatOrFloats => {
            let v: Vec<Value> = m
                .get_many::<Value>(f.long)
                .into_iter()
                .flatten()
                .cloned()
                .collect();
            match <[Value; 1]>::try_from(v) {
                Ok([one]) => one,
                Err(v) => Value::Array(v),
            }
        }
        _ => m
            .get_one::<Value>(f.long)
            .cloned()
            .unwrap_or(Value::Boolean(true)),
    }
}

/// Writes the given flags' values into the spec `table` at their paths. A value replaces the
/// fields it is an alternative to ([`pendula::spec::ALTERNATIVES`]), and a different
/// `--method` drops the old method's settings.
pub fn overlay(table: &mut toml::Table, m: &ArgMatches, command: &str) {
    for f in given(m, command) {
        let path = path_of(f, command);
        let v = value(m, f);
        if f.long == "theta" {
            radians_hint(&v);
        }
        if path == "sweep.axis" {
            // The command line's fields replace the spec's.
            for key in ["parameter", "values", "range", "count"] {
                remove(table, &format!("sweep.{key}"));
            }
        }
        if path == "integrator.method" && get(table, &path) != Some(&v) {
            table.remove("integrator");
        }
        for group in pendula::spec::ALTERNATIVES {
            if group.contains(&path.as_str()) {
                for other in *group {
                    remove(table, other);
                }
            }
        }
        set(table, &path, v);
    }
}

/// A note on stderr when `--theta` holds an angle of more than a full turn: 120 rad is a legal
/// start, but far more often degrees given to the radians flag.
fn radians_hint(v: &Value) {
    let Some(angles) = v.as_array() else { return };
    let values: Vec<f64> = angles
        .iter()
        .filter_map(|a| a.as_float().or(a.as_integer().map(|i| i as f64)))
        .collect();
    if let Some(big) = values.iter().find(|a| a.abs() > std::f64::consts::TAU) {
        let list: Vec<String> = values.iter().map(|a| a.to_string()).collect();
        eprintln!(
            "note: --theta is in radians, and {big} rad is more than a full turn; \
             did you mean --theta-deg {}?",
            list.join(",")
        );
    }
}

fn get<'a>(table: &'a toml::Table, path: &str) -> Option<&'a Value> {
    let (head, last) = path.rsplit_once('.').unwrap_or(("", path));
    let mut t = table;
    for key in head.split('.').filter(|k| !k.is_empty()) {
        t = t.get(key)?.as_table()?;
    }
    t.get(last)
}

fn remove(table: &mut toml::Table, path: &str) {
    let (head, last) = path.rsplit_once('.').unwrap_or(("", path));
    let mut t = table;
    for key in head.split('.').filter(|k| !k.is_empty()) {
        match t.get_mut(key).and_then(Value::as_table_mut) {
            Some(next) => t = next,
            None => return,
        }
    }
    t.remove(last);
}

fn set(table: &mut toml::Table, path: &str, v: Value) {
    let (head, last) = path.rsplit_once('.').unwrap_or(("", path));
    let mut t = table;
    for key in head.split('.').filter(|k| !k.is_empty()) {
        let entry = t
            .entry(key)
            .or_insert_with(|| Value::Table(Default::default()));
        if !entry.is_table() {
            *entry = Value::Table(Default::default());
        }
        t = entry.as_table_mut().expect("made a table above");
    }
    t.insert(last.to_string(), v);
}

/// The flag of `command` that sets `field` (`initial.theta[2]` → `--theta`), if any.
pub fn flag_of(field: &str, command: &str) -> Option<&'static Flag> {
    let field = field.split('[').next().unwrap_or(field);
    FLAGS
        .iter()
        .find(|f| f.commands.contains(&command) && path_of(f, command) == field)
}

/// Names the flag in a validation error when the field's value came from a flag, or from a
/// flag's default (no spec file was given); otherwise names the spec field.
///
/// A `model.*` field that came from a `--model` file (its flag not given) names the file's
/// field: `--model: mass: ...`, not the flag `--mass` the user never typed.
pub fn name_flag(e: SpecError, m: &ArgMatches, command: &str, from_file: bool) -> String {
    let flag_given = |f: &Flag| given(m, command).any(|g| g.long == f.long);
    let model_file = m.try_get_one::<std::path::PathBuf>("model").ok().flatten();
    if let (Some(p), Some(rest)) = (model_file, e.field.strip_prefix("model.")) {
        if !flag_of(&e.field, command).is_some_and(flag_given) {
            let body = e.body(&|f| f.strip_prefix("model.").unwrap_or(f).to_string());
            return format!("--model {}: {rest}: {body}", p.display());
        }
    }
    // Every field the error names, itself and the others, is spelt the same way.
    // A table the flags filled (`model.drive` from --torque-amplitude) is named by a flag that
    // set one of its fields.
    let within = |field: &str| {
        let prefix = format!("{field}.");
        given(m, command).find(|f| path_of(f, command).starts_with(&prefix))
    };
    e.render(&|field| match flag_of(field, command) {
        Some(f) if !from_file || flag_given(f) => format!("--{}", f.long),
        None => match within(field) {
            Some(f) => format!("--{}", f.long),
            None => spell(field),
        },
        _ => spell(field),
    })
}

/// A field that no command's flag table sets, as the CLI spells it: the memory budget is
/// `--max-memory`, a spec field its path.
pub fn spell(field: &str) -> String {
    if field == pendula::limits::MEMORY_BUDGET {
        "--max-memory".into()
    } else {
        field.to_string()
    }
}

/// A table the flags started that misses a field another flag sets (`--torque-amplitude`
/// without `--torque-frequency`: `model.drive.torque: missing field \`frequency\``): the missing
/// flag is named, with the one that was given.
pub fn refuse_missing(e: &SpecError, m: &ArgMatches, command: &str) -> Option<String> {
    let Cause::Missing { table, name } = e.cause() else {
        return None;
    };
    let needed = flag_of(&format!("{table}.{name}"), command)?;
    let prefix = format!("{table}.");
    let by = given(m, command).find(|f| path_of(f, command).starts_with(&prefix))?;
    Some(format!(
        "--{}: is needed with --{} (the spec's {table}.{name})",
        needed.long, by.long
    ))
}

/// A field unknown to the spec's model (`unknown field \`preset\`` in a cart chain's
/// `[model]`) that a flag set: the flag is refused, by name. `model` is the model's kind.
pub fn refuse_unknown(e: &SpecError, m: &ArgMatches, command: &str, model: &str) -> Option<String> {
    let Cause::Unknown { name, .. } = e.cause() else {
        return None;
    };
    let name = name.as_str();
    // `--damping` sets model.damping.absolute: a model without `damping` refuses it by name.
    let f =
        given(m, command).find(|f| path_of(f, command).split('.').skip(1).any(|p| p == name))?;
    let path = path_of(f, command);
    let parts: Vec<&str> = path.split('.').collect();
    let at = parts
        .iter()
        .skip(1)
        .position(|p| *p == name)
        .map_or(0, |i| i + 1);
    Some(format!(
        "--{}: does not apply to the {model} model (its `{}` has no field `{name}`)",
        f.long,
        parts[..at].join(".")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_flag_is_declared_once_per_command() {
        for c in [SIM, MODES, LYAP, POIN, MAP, ANIM, CTRL] {
            let mut longs: Vec<_> = FLAGS
                .iter()
                .filter(|f| f.commands.contains(&c))
                .map(|f| f.long)
                .collect();
            longs.sort();
            let n = longs.len();
            longs.dedup();
            assert_eq!(n, longs.len(), "{c} declares a flag twice");
            let mut paths: Vec<_> = FLAGS
                .iter()
                .filter(|f| f.commands.contains(&c))
                .map(|f| path_of(f, c))
                .collect();
            paths.sort();
            paths.dedup();
            assert_eq!(n, paths.len(), "{c}: two flags set one field");
        }
    }

    #[test]
    fn paths_land_in_tables() {
        let mut t = toml::Table::new();
        set(&mut t, "map.resolution", Value::Integer(64));
        set(
            &mut t,
            "initial.theta",
            Value::Array(vec![Value::Float(1.0)]),
        );
        assert_eq!(get(&t, "map.resolution"), Some(&Value::Integer(64)));
        remove(&mut t, "initial.theta");
        assert_eq!(get(&t, "initial.theta"), None);
        assert_eq!(
            flag_of("initial.theta[2]", "simulate").map(|f| f.long),
            Some("theta")
        );
        assert_eq!(flag_of("map.t_end", "map").map(|f| f.long), Some("t-end"));
    }
}
