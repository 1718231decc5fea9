//! Typed store errors, each mapped onto one stable [`ErrorCode`].
//!
//! Every store (files today, PostgreSQL next) returns these, so a caller
//! can tell "try another run" ([`StoreError::Conflict`]) from "the data is
//! damaged" ([`StoreError::Corrupt`]) without matching on messages; at the
//! API edge they become an [`Error`] with the code below.

use crate::error::{Error, ErrorCode};

/// What a store operation can fail with.
///
/// | variant | code |
/// |---|---|
/// | [`NotFound`](Self::NotFound) | `not_found` |
/// | [`AlreadyExists`](Self::AlreadyExists) | `already_exists` |
/// | [`SeqConflict`](Self::SeqConflict), [`Fenced`](Self::Fenced) | `conflict` |
/// | [`InvalidName`](Self::InvalidName) | `invalid_name` |
/// | [`Corrupt`](Self::Corrupt) | `corrupt_store` |
/// | [`Io`](Self::Io) | `io` |
/// | [`Other`](Self::Other) | the error's own code |
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The run, script, version, event, blob or artifact does not exist.
    #[error("{0}")]
    NotFound(String),
    /// A run id (or a script name, without `replace`) is taken.
    #[error("{0}")]
    AlreadyExists(String),
    /// A journal append named a seq other than the journal's next one:
    /// someone else appended first, or the writer lost count.
    #[error("journal of run {run}: an append at seq {expected} was refused, the next seq is {next}")]
    SeqConflict {
        /// The run.
        run: String,
        /// The seq the writer expected to write.
        expected: u64,
        /// The seq the store would have given it.
        next: u64,
    },
    /// A write made under a claim that was released or taken over (a
    /// stale owner, e.g. one paused past its lease).
    #[error("run {run}: the claim with fencing token {token} is no longer held; the write was refused")]
    Fenced {
        /// The run.
        run: String,
        /// The stale claim's token.
        token: u64,
    },
    /// A script name, call id or key is not a single safe name.
    #[error("{0}")]
    InvalidName(String),
    /// Stored data cannot be read (a damaged line, a malformed record).
    #[error("{0}")]
    Corrupt(String),
    /// The storage itself failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// An error with another code the store passes on (a credential-shaped
    /// id refused with `invalid_args`, a script holding a credential with
    /// `invalid_script`, an `internal` bug).
    #[error("{}", .0.message())]
    Other(Error),
}

/// `Result` with a [`StoreError`].
pub type StoreResult<T> = std::result::Result<T, StoreError>;

impl StoreError {
    /// The stable code this error surfaces as.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::NotFound(_) => ErrorCode::NotFound,
            Self::AlreadyExists(_) => ErrorCode::AlreadyExists,
            Self::SeqConflict { .. } | Self::Fenced { .. } => ErrorCode::Conflict,
            Self::InvalidName(_) => ErrorCode::InvalidName,
            Self::Corrupt(_) => ErrorCode::CorruptStore,
            Self::Io { .. } => ErrorCode::Io,
            Self::Other(e) => e.code(),
        }
    }

    /// An I/O failure about `what` ([`StoreError::NotFound`] when the
    /// error says the thing is missing).
    pub fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        let what = what.into();
        if source.kind() == std::io::ErrorKind::NotFound {
            Self::NotFound(format!("{what}: {source}"))
        } else {
            Self::Io { what, source }
        }
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Other(e) => e,
            e => Error::new(e.code(), e.to_string()),
        }
    }
}

impl From<Error> for StoreError {
    /// Sort an [`Error`] into its variant by code (the message is kept).
    fn from(e: Error) -> Self {
        let message = e.message().to_owned();
        match e.code() {
            ErrorCode::NotFound => Self::NotFound(message),
            ErrorCode::AlreadyExists => Self::AlreadyExists(message),
            ErrorCode::InvalidName => Self::InvalidName(message),
            ErrorCode::CorruptStore => Self::Corrupt(message),
            _ => Self::Other(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_has_its_code_and_keeps_it_through_error() {
        let cases = [
            (StoreError::NotFound("no run".into()), "not_found"),
            (StoreError::AlreadyExists("taken".into()), "already_exists"),
            (
                StoreError::SeqConflict {
                    run: "r".into(),
                    expected: 3,
                    next: 5,
                },
                "conflict",
            ),
            (
                StoreError::Fenced {
                    run: "r".into(),
                    token: 2,
                },
                "conflict",
            ),
            (StoreError::InvalidName("bad".into()), "invalid_name"),
            (StoreError::Corrupt("line 2".into()), "corrupt_store"),
            (StoreError::io("write", std::io::Error::other("disk")), "io"),
            (
                StoreError::io("read", std::io::Error::from(std::io::ErrorKind::NotFound)),
                "not_found",
            ),
            (
                StoreError::Other(Error::new(ErrorCode::InvalidScript, "credential")),
                "invalid_script",
            ),
        ];
        for (e, code) in cases {
            assert_eq!(e.code().as_str(), code, "{e}");
            let message = e.to_string();
            let as_error = Error::from(e);
            assert_eq!(as_error.code().as_str(), code);
            assert_eq!(as_error.message(), message);
            // And back: the variant is found again by its code.
            assert_eq!(StoreError::from(as_error).code().as_str(), code);
        }
    }

    #[test]
    fn a_conflict_names_both_seqs() {
        let e = StoreError::SeqConflict {
            run: "r1".into(),
            expected: 3,
            next: 5,
        };
        assert!(
            e.to_string().contains("seq 3") && e.to_string().contains("next seq is 5"),
            "{e}"
        );
    }
}
