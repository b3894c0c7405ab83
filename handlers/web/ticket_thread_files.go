package web

import (
	"slices"
	"time"

	"cloudplane/views"
)

// threadWithFiles places each uploaded file in the conversation where it
// was added: after every comment and activity written at or before it, so
// a file sent with a comment (or with the new ticket) follows that
// comment.
func threadWithFiles(thread []views.ThreadItem, files []views.Attachment) []views.ThreadItem {
	files = slices.Clone(files)
	slices.SortStableFunc(files, func(a, b views.Attachment) int { return a.Created.Compare(b.Created) })
	out := make([]views.ThreadItem, 0, len(thread)+len(files))
	f := 0
	for _, item := range thread {
		for ; f < len(files) && files[f].Created.Before(itemTime(item)); f++ {
			out = append(out, views.ThreadItem{File: &files[f]})
		}
		out = append(out, item)
	}
	for ; f < len(files); f++ {
		out = append(out, views.ThreadItem{File: &files[f]})
	}
	return out
}

func itemTime(item views.ThreadItem) time.Time {
	switch {
	case item.Comment != nil:
		return item.Comment.Time
	case item.Activity != nil:
		return item.Activity.Time
	}
	return item.File.Created
}
