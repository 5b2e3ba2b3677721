//! The client side of MCP: the session that speaks to one server over any transport.

pub mod session;

pub use session::{Outgoing, Session, SessionInfo};
