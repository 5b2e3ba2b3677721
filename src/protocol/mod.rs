//! The client side of MCP: the session that speaks to one server over any transport.

pub mod session;

pub use crate::record::version;
pub use crate::record::{Era, Exchange, Reply, VersionRange};
pub use session::{Outgoing, Session, SessionInfo};
