//! What serves people working on a local stack rather than its clients: the development
//! inbox for mail sent without an SMTP server ([`inbox`]) and the status block that says
//! where everything is and which keys to use ([`status`]).

pub mod inbox;
pub mod status;
