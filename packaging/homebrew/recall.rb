# Homebrew formula for recall (template). `bun run build` writes dist/recall.rb with the version, the release
# URL and the sha256 of every archive it built; placeholders of archives not built in that run stay as they are.
class Recall < Formula
  desc "Search your AI coding sessions (Claude Code, OpenCode) by meaning and by keyword"
  homepage "https://github.com/recall-cli/recall"
  version "@@VERSION@@"
  license "MIT"

  on_macos do
    on_arm do
      url "@@BASE_URL@@/recall-darwin-arm64.tar.gz"
      sha256 "@@SHA256_DARWIN_ARM64@@"
    end
    on_intel do
      url "@@BASE_URL@@/recall-darwin-x64.tar.gz"
      sha256 "@@SHA256_DARWIN_X64@@"
    end
  end

  on_linux do
    on_arm do
      url "@@BASE_URL@@/recall-linux-arm64.tar.gz"
      sha256 "@@SHA256_LINUX_ARM64@@"
    end
    on_intel do
      url "@@BASE_URL@@/recall-linux-x64.tar.gz"
      sha256 "@@SHA256_LINUX_X64@@"
    end
  end

  def install
    bin.install "recall"
  end

  def caveats
    <<~EOS
      To let Claude Code search your past sessions, install the skill:
        recall skill install
      Check the setup (sources, index, model, Claude Code's cleanup period):
        recall doctor
    EOS
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/recall --version")
    assert_match "search", shell_output("#{bin}/recall --help")
  end
end
