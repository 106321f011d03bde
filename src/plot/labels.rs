//! The axis labels a run's user gave (`--xlabel`, `--ylabel`, `[output] xlabel/ylabel`) in
//! place of a figure's own: every figure asks [`x_desc`] and [`y_desc`] for the label it
//! would draw, so one override reaches every kind's figure without each kind carrying it.

use std::cell::RefCell;

/// Labels to draw instead of a figure's own (None: its own).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Labels {
    pub x: Option<String>,
    pub y: Option<String>,
}

thread_local! {
    static GIVEN: RefCell<Labels> = RefCell::new(Labels::default());
}

/// Runs `draw` (which draws figures on this thread) with `labels` in place of the figures'
/// own axis labels, then restores the labels that were in place.
pub fn with_labels<R>(labels: Labels, draw: impl FnOnce() -> R) -> R {
    let before = GIVEN.with(|g| g.replace(labels));
    let r = draw();
    GIVEN.with(|g| *g.borrow_mut() = before);
    r
}

/// The x-axis label to draw: the given one, else the figure's `own`.
pub fn x_desc(own: impl Into<String>) -> String {
    GIVEN
        .with(|g| g.borrow().x.clone())
        .unwrap_or_else(|| own.into())
}

/// The y-axis label to draw (every panel's): the given one, else the figure's `own`.
pub fn y_desc(own: impl Into<String>) -> String {
    GIVEN
        .with(|g| g.borrow().y.clone())
        .unwrap_or_else(|| own.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_labels_replace_the_figures_own_inside_the_scope_only() {
        assert_eq!(x_desc("t / s"), "t / s");
        let inside = with_labels(
            Labels {
                x: Some("time".into()),
                y: None,
            },
            || (x_desc("t / s"), y_desc("θ / rad")),
        );
        assert_eq!(inside, ("time".to_string(), "θ / rad".to_string()));
        assert_eq!(x_desc("t / s"), "t / s");
    }
}
