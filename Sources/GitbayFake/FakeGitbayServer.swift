/// Placeholder.
public enum FakeGitbay {}
