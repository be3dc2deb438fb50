//! Where a server's tokens are kept: rmcp's `CredentialStore` over one JSON file per server,
//! readable by the user alone (mode 0600 in a 0700 directory), written whole through a
//! temporary file and a rename, so a reader never sees half a token. Without a file they stay
//! in memory.

use std::path::{Path, PathBuf};

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};
use serde::{Deserialize, Serialize};
use tokio::sync::RwLock;

/// The file's shape: the credentials and the server URL they were issued for, so a name
/// pointed at another server never sends it the first one's token.
#[derive(Serialize, Deserialize)]
struct TokenFile {
    resource: String,
    credentials: StoredCredentials,
}

/// One server's tokens.
pub(crate) struct TokenStore {
    file: Option<PathBuf>,
    resource: String,
    memory: RwLock<Option<StoredCredentials>>,
}

impl TokenStore {
    pub(crate) fn new(file: Option<PathBuf>, resource: &str) -> Self {
        Self {
            file,
            resource: resource.to_owned(),
            memory: RwLock::new(None),
        }
    }
}

fn store_error(path: &Path, action: &str, error: impl std::fmt::Display) -> AuthError {
    AuthError::CredentialStoreError(format!("cannot {action} {}: {error}", path.display()))
}

fn read(path: &Path, resource: &str) -> Result<Option<StoredCredentials>, AuthError> {
    Ok(read_any(path)?
        .filter(|(stored_for, _)| stored_for == resource)
        .map(|(_, credentials)| credentials))
}

/// The login stored in `path`, whatever server it is for: that server's URL and the
/// credentials.
pub(crate) fn read_any(path: &Path) -> Result<Option<(String, StoredCredentials)>, AuthError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(store_error(path, "read", error)),
    };
    // A file that does not parse is reported without its text (it holds tokens).
    let file: TokenFile = serde_json::from_str(&text)
        .map_err(|error| store_error(path, "read", format!("not a token file ({error})")))?;
    Ok(Some((file.resource, file.credentials)))
}

fn write(path: &Path, resource: &str, credentials: StoredCredentials) -> Result<(), AuthError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    create_private_dir(dir).map_err(|error| store_error(dir, "create", error))?;
    let file = TokenFile {
        resource: resource.to_owned(),
        credentials,
    };
    let text =
        serde_json::to_vec_pretty(&file).map_err(|error| store_error(path, "write", error))?;
    let mut temp = private_temp_file(dir).map_err(|error| store_error(dir, "write in", error))?;
    std::io::Write::write_all(&mut temp, &text)
        .map_err(|error| store_error(path, "write", error))?;
    temp.persist(path)
        .map_err(|error| store_error(path, "write", error.error))?;
    Ok(())
}

/// Creates `dir` and its parents; the directories made are 0700.
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(dir)
}

/// A temporary file in `dir`, 0600 (tempfile's default on Unix).
fn private_temp_file(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    tempfile::Builder::new().prefix(".token-").tempfile_in(dir)
}

#[async_trait::async_trait]
impl CredentialStore for TokenStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        match &self.file {
            Some(path) => read(path, &self.resource),
            None => Ok(self.memory.read().await.clone()),
        }
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        match &self.file {
            Some(path) => write(path, &self.resource, credentials),
            None => {
                *self.memory.write().await = Some(credentials);
                Ok(())
            }
        }
    }

    async fn clear(&self) -> Result<(), AuthError> {
        *self.memory.write().await = None;
        if let Some(path) = &self.file {
            match std::fs::remove_file(path) {
                Ok(()) => {}
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => return Err(store_error(path, "remove", error)),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credentials(client: &str) -> StoredCredentials {
        StoredCredentials::new(client.to_owned(), None, vec!["a".into()], Some(1))
    }

    #[tokio::test]
    async fn the_file_is_the_users_alone_and_bound_to_its_server() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("oauth/srv.json");
        let store = TokenStore::new(Some(path.clone()), "http://a/mcp");
        assert!(store.load().await.unwrap().is_none());
        store.save(credentials("c1")).await.unwrap();
        assert_eq!(store.load().await.unwrap().unwrap().client_id, "c1");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
            let mode = std::fs::metadata(path.parent().unwrap())
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o700);
        }
        let other = TokenStore::new(Some(path.clone()), "http://b/mcp");
        assert!(
            other.load().await.unwrap().is_none(),
            "another server's token"
        );
        store.clear().await.unwrap();
        assert!(!path.exists());
    }
}
