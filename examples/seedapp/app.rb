# A small Rack app with the pages of seeds 000 and 001: a Discourse-like topic list and topic page,
# and a Redmine-like issue list and issue page, rendered from records with ERB as a Rails view
# would be. Served by `rackup` (examples/seedapp/config.ru) on WEBrick or Puma.
#
# SEEDAPP_OSTRUCTS: OpenStructs built per page (each defines singleton methods at runtime: the
# method-cache churn that seed 000's class-hierarchy cache was about). 0 by default.
require 'erb'
require 'ostruct'

module SeedApp
  ISSUE_FIELDS = %i[id project tracker status priority author assigned_to category fixed_version subject
                    description start_date due_date done_ratio estimated_hours parent root lft rgt
                    is_private created_on updated_on closed_on].freeze                      # 23, as Redmine's Issue
  USER_FIELDS = %i[id login firstname lastname mail admin status last_login_on language auth_source
                   created_on updated_on type identity_url mail_notification salt must_change_passwd].freeze # 17

  def self.user(i)
    USER_FIELDS.to_h { |f| [f, f == :id ? i : "#{f}-#{i}"] }
  end

  def self.issue(i)
    ISSUE_FIELDS.to_h { |f| [f, f == :id ? i : "#{f} of issue #{i}"] }.merge(author: user(i % 7), assigned_to: user(i % 5))
  end

  def self.post(topic, i)
    { id: topic * 100 + i, number: i + 1, user: user(i % 9), cooked: "<p>Post #{i} of topic #{topic}. " + ("lorem ipsum " * 40) + "</p>",
      reply_count: i % 3, like_count: i % 11, created_at: "2013-05-#{10 + i % 20}" }
  end

  def self.topic(i)
    { id: i, title: "Topic #{i}: quote reply gets in the way", slug: "topic-#{i}", posts_count: 20 + i % 13,
      views: 1000 + i * 37, category: "category-#{i % 4}", last_poster: user(i % 6), excerpt: "excerpt " * 20 }
  end

  TEMPLATES = {
    latest: ERB.new(<<~'HTML', trim_mode: '-'),
      <html><head><title>Latest topics</title></head><body><table>
      <%- records.each do |t| -%>
      <tr><td><a href="/t/<%= t[:slug] %>/<%= t[:id] %>"><%= ERB::Util.h(t[:title]) %></a></td><td><%= t[:category] %></td>
      <td><%= t[:posts_count] %></td><td><%= t[:views] %></td><td><%= t[:last_poster][:login] %></td><td><%= ERB::Util.h(t[:excerpt]) %></td></tr>
      <%- end -%>
      </table></body></html>
    HTML
    topic: ERB.new(<<~'HTML', trim_mode: '-'),
      <html><head><title>Topic</title></head><body>
      <%- records.each do |p| -%>
      <article id="post_<%= p[:number] %>"><header><%= p[:user][:login] %> (<%= p[:user][:firstname] %> <%= p[:user][:lastname] %>) <%= p[:created_at] %></header>
      <%= p[:cooked] %><footer><%= p[:reply_count] %> replies, <%= p[:like_count] %> likes</footer></article>
      <%- end -%>
      </body></html>
    HTML
    issues: ERB.new(<<~'HTML', trim_mode: '-'),
      <html><head><title>Issues</title></head><body><table class="list issues">
      <%- records.each do |i| -%>
      <tr id="issue-<%= i[:id] %>"><%- ISSUE_FIELDS.each do |f| v = i[f] -%><td class="<%= f %>"><%= ERB::Util.h(v.is_a?(Hash) ? "#{v[:firstname]} #{v[:lastname]}" : v) %></td><%- end -%></tr>
      <%- end -%>
      </table></body></html>
    HTML
    issue: ERB.new(<<~'HTML', trim_mode: '-'),
      <html><head><title>Issue</title></head><body>
      <%- records.each do |i| -%>
      <div class="issue"><%- ISSUE_FIELDS.each do |f| v = i[f] -%><div class="<%= f %>"><%= ERB::Util.h(v.is_a?(Hash) ? USER_FIELDS.map { |u| v[u] }.join(' ') : v) %></div><%- end -%></div>
      <%- end -%>
      </body></html>
    HTML
  }.freeze

  PAGES = {
    '/latest' => [:latest, -> { Array.new(30) { |i| topic(i) } }],
    '/t/quote-reply-gets-in-the-way/1495' => [:topic, -> { Array.new(20) { |i| post(1495, i) } }],
    '/projects/work-flow/issues' => [:issues, -> { Array.new(25) { |i| issue(i) } }],
    '/issues/35' => [:issue, -> { [issue(35)] }],
  }.freeze

  # Rendered with `records` (and the constants above) in scope.
  class View
    include SeedApp
    def initialize(records) = (@records = records)
    attr_reader :records
    def render(template) = template.result(binding)
  end

  # The Rack application: one page per route; 404 elsewhere.
  class App
    def initialize
      @ostructs = Integer(ENV.fetch('SEEDAPP_OSTRUCTS', '0'))
      @served = 0
      at_exit { warn "seedapp: served #{@served} requests" }
    end

    def call(env)
      template, records = PAGES[env['PATH_INFO']]
      return [404, { 'Content-Type' => 'text/plain' }, ["no such page\n"]] unless template

      @served += 1
      list = records.call
      @ostructs.times { |i| OpenStruct.new(list[i % list.size].slice(:id, :title, :subject, :login)) }
      body = View.new(list).render(TEMPLATES[template])
      [200, { 'Content-Type' => 'text/html', 'X-Seedapp' => RUBY_DESCRIPTION }, [body]]
    end
  end
end
