//! Where this process stands in change capture, for `/health`, the logs and subscribers.

use std::sync::Mutex;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaptureState {
    Starting,
    /// Capturing: this process holds the lock and reads the slot.
    Capturing,
    /// Another process holds the lock; this one takes over if it goes.
    Standby,
    /// The database cannot give changes; postgres_changes are refused with the reason.
    Unavailable(String),
}

#[derive(Debug)]
pub struct CaptureStatus {
    state: Mutex<CaptureState>,
    changed: tokio::sync::Notify,
}

impl Default for CaptureStatus {
    fn default() -> Self {
        Self {
            state: Mutex::new(CaptureState::Starting),
            changed: tokio::sync::Notify::new(),
        }
    }
}

impl CaptureStatus {
    pub fn get(&self) -> CaptureState {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    pub fn set(&self, state: CaptureState) {
        *self
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = state;
        self.changed.notify_waiters();
    }

    /// Waits until capture has started one way or another (not `Starting`).
    pub async fn settled(&self) {
        loop {
            let changed = self.changed.notified();
            if self.get() != CaptureState::Starting {
                return;
            }
            changed.await;
        }
    }

    /// The state's name in `/health`, and the reason when unavailable.
    pub fn describe(&self) -> (&'static str, Option<String>) {
        match self.get() {
            CaptureState::Starting => ("starting", None),
            CaptureState::Capturing => ("capturing", None),
            CaptureState::Standby => ("standby", None),
            CaptureState::Unavailable(reason) => ("unavailable", Some(reason)),
        }
    }
}
