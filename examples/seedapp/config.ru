# rackup examples/seedapp/config.ru -s webrick -o 127.0.0.1 -p PORT -E none
require_relative 'app'

# One line per start, read back by the tests: which Ruby, with or without YJIT, and the settings.
settings = ENV.select { |k, _| k.start_with?('RUBY_', 'SEEDAPP_') }.sort.map { |k, v| "#{k}=#{v}" }.join(' ')
yjit = defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled? ? 'on' : 'off'
warn "seedapp: #{RUBY_DESCRIPTION} yjit=#{yjit} #{settings}".rstrip
run SeedApp::App.new
