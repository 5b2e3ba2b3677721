//! The client side of MCP: versions and eras, and the session that speaks to one server.

pub mod session;
pub mod version;

pub use session::{Exchange, Outgoing, Reply, Session, SessionInfo};
pub use version::{Era, VersionRange};
