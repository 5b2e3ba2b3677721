//! Scenarios: the on-disk TOML format, its validation, and the resolved model the runner uses.

pub mod file;
pub mod load;
pub mod model;
pub mod schema;
pub mod template;

pub use load::LoadError;
pub use model::{Capture, Mode, Poll, Scenario, ScenarioCheck, SessionKind, Step, StepSend};
