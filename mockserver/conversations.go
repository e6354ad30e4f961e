package mockserver

import (
	"contractkit/mockserver/apierr"
	"contractkit/spec"
)

// conversationRoutes serves conversations and their messages (API reference
// v1, §4.2).
func (s *Server) conversationRoutes() map[string]handler {
	return map[string]handler{
		spec.OpListConversations:  s.listConversations,
		spec.OpCreateConversation: s.createConversation,
		spec.OpRenameConversation: renameConversation,
		spec.OpDeleteConversation: func(c *call) (any, error) { return c.account.DeleteConversation(c.params["conversation_id"]) },
		spec.OpListMessages:       s.listMessages,
	}
}

func (s *Server) listConversations(c *call) (any, error) {
	p := s.paging(c)
	return c.account.Conversations(c.r.URL.Query().Get("model_id"), p["size"], p["offset"])
}

func (s *Server) createConversation(c *call) (any, error) {
	var in struct {
		ModelID int64   `json:"model_id"`
		Title   *string `json:"title"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	title := s.defaults.newConversationTitle
	if in.Title != nil {
		title = *in.Title
	}
	return c.account.CreateConversation(in.ModelID, title)
}

func renameConversation(c *call) (any, error) {
	var in struct {
		Title *string `json:"title"`
	}
	if err := c.decode(&in); err != nil {
		return nil, err
	}
	if in.Title == nil && c.r.URL.Query().Has("title") {
		t := c.r.URL.Query().Get("title") // D-21
		in.Title = &t
	}
	if in.Title == nil {
		return nil, apierr.New(apierr.Invalid, "title: required (in the JSON body)")
	}
	return c.account.RenameConversation(c.params["conversation_id"], *in.Title)
}

// listMessages pages a conversation's messages, oldest first (D-06).
func (s *Server) listMessages(c *call) (any, error) {
	all, err := c.account.Messages(c.params["conversation_id"])
	if err != nil {
		return nil, err
	}
	p := s.paging(c)
	offset := min(p["offset"], len(all))
	return all[offset:min(len(all), offset+p["size"])], nil
}
